// One clock and one logger: the ESLint rules refuse `Date.now()` outside the
// clocks and the entry points, and `console.*` outside the loggers.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { clockAndLogConfig } from '../../scripts/lint/clock-and-log.mjs';

async function messages(code: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...clockAndLogConfig()],
  });
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.message);
}

describe('the clock lint rule', () => {
  it('refuses Date.now() in the worker and the sandbox', async () => {
    for (const file of ['worker/verifications/example.ts', 'worker/lib/example.ts', 'sandbox/example.ts']) {
      const found = await messages('export const t = () => Date.now();', file);
      assert.equal(found.length, 1, file);
      assert.match(found[0]!, /injected clock/);
    }
  });

  it('lets the clocks and the entry points read it, and leaves other Date calls alone', async () => {
    for (const file of ['worker/lib/clock.ts', 'sandbox/store.ts', 'worker/entry/local.ts', 'sandbox/entry.ts']) {
      assert.deepEqual(await messages('export const t = () => Date.now();', file), [], file);
    }
    assert.deepEqual(await messages('export const t = (ms: number) => [new Date(ms).toISOString(), Date.parse("x")];', 'worker/x.ts'), []);
  });
});

describe('the log lint rule', () => {
  it('refuses console.* outside the loggers', async () => {
    for (const code of ['console.log("x");', 'console.error(JSON.stringify({ a: 1 }));', 'console.warn("x");']) {
      const found = await messages(code, 'worker/verifications/example.ts');
      assert.equal(found.length, 1, code);
    }
    assert.equal((await messages('console.log("x");', 'sandbox/app.ts')).length, 1);
  });

  it('lets the loggers write', async () => {
    assert.deepEqual(await messages('console.log("x");', 'worker/lib/log.ts'), []);
    assert.deepEqual(await messages('console.error("x");', 'sandbox/log.ts'), []);
  });
});
