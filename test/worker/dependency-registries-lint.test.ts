// One way to plug in a dependency: the ESLint rule refuses a use…() setter, a
// module-level `let` and a WeakMap keyed by the environment in the worker, so
// every dependency goes through the ports (worker/ports.ts).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { lintMessages } from '../support/lint-text';
import { dependencyRegistriesConfig } from '../../scripts/lint/dependency-registries.mjs';

const messages = (code: string, filePath = 'worker/verifications/example.ts') => lintMessages(dependencyRegistriesConfig(), code, filePath);

describe('the dependency-registry lint rule', () => {
  it('refuses the registries the ports replaced', async () => {
    const registry = [
      'import type { Env } from "../lib/env";',
      'let plugged: (() => void) | undefined;',
      'export function useTransport(t: () => void): void { plugged = t; }',
      'const injected = new WeakMap<Env, object>();',
      'export const useStore = (env: Env, s: object) => injected.set(env, s);',
    ].join('\n');
    const found = await messages(registry);
    assert.equal(found.length, 4, found.join('\n'));
    assert.equal(found.filter((m) => /use…\(\) registry/.test(m)).length, 2);
    assert.equal(found.filter((m) => /module-level mutable state/.test(m)).length, 1);
    assert.equal(found.filter((m) => /per-environment registry/.test(m)).length, 1);
  });

  it('leaves ports, caches of computed values and code outside the worker alone', async () => {
    const fine = [
      'const keys = new Map<string, Promise<CryptoKey>>();',
      'const hashes = new WeakMap<readonly string[], string>();',
      'export function useful(): number { let n = 0; n += 1; return n; }',
      'export const userAgent = "x";',
    ].join('\n');
    assert.deepEqual(await messages(fine), []);
    assert.deepEqual(await messages('export let x = 1; export function useThing() {}', 'test/support/example.ts'), []);
  });
});
