// The widget's script-tag bundle options and esbuild plugins, in one place:
// scripts/build-widget.mjs builds the widget with them, and the bench
// (bench/size.ts) builds its minimal Lit element with the same, so the
// floor the widget is compared with is bundled exactly like it.
import { readFileSync } from 'node:fs';

/** The widget's sources (and, for the bench, its fixtures) whose css``/html`` text is minified. */
export const TEMPLATE_SOURCES = /[\\/](bench[\\/]fixtures|widget)[\\/].*\.ts$/;

/** Minify the CSS in css`` literals, strip indentation in html`` ones (esbuild leaves template text as is). */
export const minifyTemplates = {
  name: 'minify-templates',
  setup(b) {
    b.onLoad({ filter: TEMPLATE_SOURCES }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      text = text.replace(
        /css`([^`]*)`/g,
        (_, body) =>
          'css`' +
          body
            .replace(/\/\*[\s\S]*?\*\//g, '')
            .replace(/\s+/g, ' ')
            .replace(/\s*([{};,>])\s*/g, '$1')
            .replace(/:\s+/g, ':')
            .replace(/;}/g, '}')
            .replace(/\b0\.(\d)/g, '.$1')
            // Only a CSS identifier may go unquoted: `[theme=dark]` is valid, `[tabindex=-1]` is not (and the
            // browser would drop the whole rule it is in).
            .replace(/='(-?[A-Za-z_][\w-]*)'/g, '=$1')
            .trim() +
          '`',
      );
      // Indentation goes; inside html`` a newline is just whitespace (and none is needed between tags or before `/>`).
      text = text
        .replace(/\n[ \t]+/g, '\n')
        .replace(/>\n</g, '><')
        .replace(/\n(\/?>)/g, '$1');
      return { contents: text, loader: 'ts' };
    });
  },
};

/**
 * The bundle's private copy of Lit must leave no globals on the partner page:
 * drop Lit's version registries (`globalThis.litHtmlVersions` & co., used only
 * to warn about several Lits on one page, which is exactly what an embed is).
 */
export const noLitGlobals = {
  name: 'no-lit-globals',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](lit-html|lit-element|@lit[\\/]reactive-element)[\\/][^\\/]+\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(
        /\(\w+\.(?:litHtmlVersions|reactiveElementVersions|litElementVersions)\?\?=\[\]\)\.push\("[^"]*"\)/g,
        'void 0',
      ),
      loader: 'js',
    }));
  },
};

/**
 * esbuild options of a self-contained script-tag bundle, as the widget's entry
 * is built: `name` goes into the one-line licence banner; `tsconfig` is the
 * widget's. Entry points, output and any further plugins are the caller's.
 */
export function scriptTagOptions({ name, tsconfig, plugins = [] }) {
  return {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    tsconfig,
    // Lit's BSD-3-Clause notices, once, instead of one block per module.
    legalComments: 'none',
    banner: { js: `/*! ${name} | Lit (c) Google LLC, BSD-3-Clause */` },
    charset: 'utf8',
    // Private members (`_name`) get short names; lit's own code has no such properties.
    mangleProps: /^_[a-z]/,
    plugins: [...plugins, minifyTemplates, noLitGlobals],
    logLevel: 'warning',
  };
}
