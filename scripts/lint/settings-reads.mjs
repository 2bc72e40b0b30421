// The ESLint rule that keeps settings read in one place: every var and secret
// of the worker's `Env` (the `NAME?: string` members of worker/lib/env.ts) is
// read by worker/config.ts into the typed `Config`, and the sandbox's own by
// sandbox/config.ts. Anywhere else `env.NAME`, `c.env.NAME`, `env['NAME']` or
// `const { NAME } = env` is an error: a second reader drifts from the first
// (another default, another trim) and hides what the deployment depends on.
import { readFileSync } from 'node:fs';

/** The names of the settings: the string members of `Env`, bindings excluded. */
export function settingNames(envSource = readFileSync(new URL('../../worker/lib/env.ts', import.meta.url), 'utf8')) {
  return [...envSource.matchAll(/^\s+([A-Z][A-Z0-9_]*)\??: string;/gm)].map((m) => m[1]);
}

/** `no-restricted-syntax` selectors for a raw read of any of `names` from an env object. */
export function settingReadSelectors(names) {
  const any = `/^(${names.join('|')})$/`;
  const message = 'Read settings through Config (worker/config.ts; the sandbox: sandbox/config.ts), not from env.';
  const fromEnv = (sel) => [
    `MemberExpression[object.type='Identifier'][object.name='env']${sel}`,
    `MemberExpression[object.type='MemberExpression'][object.property.name='env']${sel}`,
  ];
  return [
    ...fromEnv(`[property.name=${any}]`),
    ...fromEnv(`[computed=true][property.value=${any}]`),
    `VariableDeclarator[init.name='env'] > ObjectPattern > Property[key.name=${any}]`,
    `VariableDeclarator[init.property.name='env'] > ObjectPattern > Property[key.name=${any}]`,
  ].map((selector) => ({ selector, message }));
}

/** The flat-config block for eslint.config.mjs. */
export function settingReadsConfig(names = settingNames()) {
  return {
    files: ['worker/**/*.ts', 'sandbox/**/*.ts'],
    ignores: ['worker/config.ts', 'sandbox/config.ts'],
    rules: { 'no-restricted-syntax': ['error', ...settingReadSelectors(names)] },
  };
}
