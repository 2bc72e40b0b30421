// Settings are read once, in worker/config.ts: the ESLint rule refuses a raw
// read of any var or secret anywhere else in the worker or the sandbox.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { lintMessages } from '../support/lint-text';
import { settingNames, settingReadsConfig } from '../../scripts/lint/settings-reads.mjs';

const messages = (code: string, filePath = 'worker/partners/example.ts') => lintMessages(settingReadsConfig(), code, filePath);

describe('the settings-read lint rule', () => {
  it('knows every var and secret of Env, and no binding', () => {
    const names = settingNames();
    for (const n of ['KYC_API_KEY', 'SESSION_SECRET', 'PUBLIC_ORIGIN', 'OPS_TOKEN', 'LIMIT_OPEN_PER_IP']) assert.ok(names.includes(n), n);
    for (const n of ['DB', 'RL_IP', 'VERIFICATIONS', 'ASSETS']) assert.ok(!names.includes(n), n);
  });

  it('refuses env.X, c.env.X, env["X"] and destructuring outside config.ts', async () => {
    for (const code of [
      'export const k = (env: any) => env.KYC_API_KEY;',
      'export const k = (env: any) => env?.SESSION_SECRET?.trim();',
      'export const k = (c: any) => c.env.PUBLIC_ORIGIN;',
      'export const k = (env: any) => env["OPS_TOKEN"];',
      'export function k(env: any) { const { WEBHOOK_SECRET } = env; return WEBHOOK_SECRET; }',
    ]) {
      const found = await messages(code);
      assert.equal(found.length, 1, code);
      assert.match(found[0]!, /Read settings through Config/);
    }
  });

  it('lets config.ts read them, and leaves bindings and Config alone', async () => {
    assert.deepEqual(await messages('export const k = (env: any) => env.KYC_API_KEY;', 'worker/config.ts'), []);
    assert.deepEqual(
      await messages('export const k = (env: any, cfg: any) => [env.DB, env.RL_IP, cfg.limits.LIMIT_OPEN_PER_IP, cfg.secrets.opsToken];'),
      [],
    );
  });
});
