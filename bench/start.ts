/**
 * Item 2: widget start in headless Chromium. Each page load gets a fresh
 * browser context (empty cache, no code cache). The bundle is served with one
 * statement prepended, `performance.mark('bench-eval-start')`, which runs as
 * the module's evaluation begins; a second module script (modules run in
 * document order, so it runs right after the bundle) waits for the element
 * to be defined and its first render done, focuses the first field in the
 * shadow root and checks that it took the focus (which forces style and
 * layout). The time between the two is "script evaluation → interactive
 * form". Alongside: the same from the bundle's responseEnd (so it includes
 * parse and compile). Widget and minimal element loads alternate.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ROOT } from '../test/support/wrangler';
import { startPageServer } from './lib/page-server';
import { median, ratio, round, summary, withTimeout } from './lib/stats';
import { buildMinimalElement } from './size';

const MARK = "performance.mark('bench-eval-start');\n";

function page(tag: string, attrs: string, script: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench ${tag}</title></head>
<body>
<${tag} ${attrs}></${tag}>
<script type="module" src="${script}"></script>
<script type="module">
  const tag = ${JSON.stringify(tag)};
  const t0 = performance.getEntriesByName('bench-eval-start')[0].startTime;
  const res = performance.getEntriesByType('resource').find((e) => e.name.endsWith(${JSON.stringify(script)}));
  const el = document.querySelector(tag);
  await customElements.whenDefined(tag);
  await el.updateComplete;
  const field = el.shadowRoot && el.shadowRoot.querySelector('input, select, textarea, button');
  if (field) field.focus();
  const ok = !!field && el.shadowRoot.activeElement === field;
  const t1 = performance.now();
  window.__bench = { evalToReady: t1 - t0, loadedToReady: res ? t1 - res.responseEnd : null, ok, field: field && (field.id || field.name || field.tagName) };
</script>
</body></html>`;
}

/** The same bundle on a page without the element: how long evaluating the module alone takes. */
function evalOnlyPage(script: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench eval only</title></head>
<body>
<script type="module" src="${script}"></script>
<script type="module">
  const t0 = performance.getEntriesByName('bench-eval-start')[0].startTime;
  window.__bench = { evalToReady: performance.now() - t0, loadedToReady: null, ok: true, field: '' };
</script>
</body></html>`;
}

export interface StartResult {
  loads: number;
  widget: ReturnType<typeof summary> & { fromResponseEnd: ReturnType<typeof summary> };
  minimal: ReturnType<typeof summary> & { fromResponseEnd: ReturnType<typeof summary> };
  /** widget median / minimal median (eval → ready). */
  ratio: number;
  ratioFromResponseEnd: number;
  target: number;
  met: boolean;
  firstField: { widget: string; minimal: string };
  /**
   * Second baseline: the widget's form markup and stylesheet rendered once by
   * a logic-free Lit element (bench/fixtures/static-form-element.ts). What the
   * form's DOM and CSS cost by themselves; absent when it cannot be built.
   */
  staticForm?: ReturnType<typeof summary> & { ratio: number };
  /**
   * Where the time goes (fewer loads): evaluating the module alone (a page
   * without the element), and the rest (instance, first render, style and
   * layout of the shadow tree) = total median − evaluation median.
   */
  breakdown: {
    loads: number;
    widget: { evaluation: number; renderAndLayout: number };
    minimal: { evaluation: number; renderAndLayout: number };
  };
}

export async function widgetStart(browser: Browser, loads: number): Promise<StartResult> {
  const server = await startPageServer();
  try {
    const js = 'text/javascript; charset=utf-8';
    server.set('/widget.js', { type: js, body: MARK + readFileSync(join(ROOT, 'dist/widget/kyc-onboard.js'), 'utf8') });
    server.set('/minimal.js', { type: js, body: MARK + (await buildMinimalElement()).toString('utf8') });
    // endpoint points nowhere reachable: the start must not depend on the network (the widget calls nothing before a submit).
    server.set('/widget.html', { type: 'text/html', body: page('kyc-onboard', 'endpoint="/api"', '/widget.js') });
    server.set('/minimal.html', { type: 'text/html', body: page('minimal-element', '', '/minimal.js') });
    let formBuilt = false;
    try {
      server.set('/form.js', { type: js, body: MARK + (await buildMinimalElement('static-form-element')).toString('utf8') });
      server.set('/form.html', { type: 'text/html', body: page('static-form-element', '', '/form.js') });
      formBuilt = true;
    } catch {
      /* the fixture follows widget/styles.ts; if that moved, the row is left out */
    }
    server.set('/widget-eval.html', { type: 'text/html', body: evalOnlyPage('/widget.js') });
    server.set('/minimal-eval.html', { type: 'text/html', body: evalOnlyPage('/minimal.js') });

    type Kind = 'widget' | 'minimal' | 'form';
    const samples = { widget: [] as number[], minimal: [] as number[], form: [] as number[] };
    const fromEnd = { widget: [] as number[], minimal: [] as number[] };
    const fields = { widget: '', minimal: '' };
    const one = async (which: Kind | 'widget-eval' | 'minimal-eval') => {
      const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
      try {
        const p = await context.newPage();
        await p.goto(`${server.url}/${which}.html`, { waitUntil: 'load', timeout: 15_000 });
        const r = await withTimeout(
          p
            .waitForFunction(() => (window as unknown as { __bench?: unknown }).__bench, undefined, { timeout: 10_000 })
            .then((h) => h.jsonValue()),
          12_000,
          `${which} start`,
        );
        const b = r as { evalToReady: number; loadedToReady: number | null; ok: boolean; field: string };
        if (!b.ok) throw new Error(`${which}: the first field in the shadow root did not take the focus`);
        if (which === 'widget' || which === 'minimal') fields[which] = b.field;
        return b;
      } finally {
        await context.close();
      }
    };
    // Warm-up (the browser process, the server): discarded.
    await one('widget');
    await one('minimal');
    const kinds: Kind[] = formBuilt ? ['widget', 'minimal', 'form'] : ['widget', 'minimal'];
    for (let i = 0; i < loads; i++) {
      for (let j = 0; j < kinds.length; j++) {
        const which = kinds[(i + j) % kinds.length]!;
        const b = await one(which);
        samples[which].push(b.evalToReady);
        if (b.loadedToReady !== null && which !== 'form') fromEnd[which].push(b.loadedToReady);
      }
    }
    const evalLoads = Math.max(5, Math.ceil(loads / 3));
    const evalOnly = { widget: [] as number[], minimal: [] as number[] };
    for (let i = 0; i < evalLoads; i++) {
      evalOnly.widget.push((await one('widget-eval')).evalToReady);
      evalOnly.minimal.push((await one('minimal-eval')).evalToReady);
    }
    const w = summary(samples.widget);
    const m = summary(samples.minimal);
    const r = ratio(w.median, m.median);
    return {
      loads,
      widget: { ...w, fromResponseEnd: summary(fromEnd.widget) },
      minimal: { ...m, fromResponseEnd: summary(fromEnd.minimal) },
      ratio: r,
      ratioFromResponseEnd: ratio(summary(fromEnd.widget).median, summary(fromEnd.minimal).median),
      target: 2,
      met: r <= 2,
      firstField: fields,
      ...(formBuilt ? { staticForm: { ...summary(samples.form), ratio: ratio(w.median, median(samples.form)) } } : {}),
      breakdown: {
        loads: evalLoads,
        widget: { evaluation: round(median(evalOnly.widget)), renderAndLayout: round(w.median - median(evalOnly.widget)) },
        minimal: { evaluation: round(median(evalOnly.minimal)), renderAndLayout: round(m.median - median(evalOnly.minimal)) },
      },
    };
  } finally {
    await server.close();
  }
}
