/**
 * `npm run deploy` (scripts/deploy.mjs) is the production deploy and refuses
 * to start unless KYC_BASE_URL names the vendor's https base URL; with one it
 * runs `wrangler deploy --env production` (here with --dry-run: nothing is
 * uploaded, no login).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { WRANGLER_ENV } from '../support/wrangler';

function deploy(baseUrl: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...WRANGLER_ENV };
  delete env.KYC_BASE_URL;
  if (baseUrl !== undefined) env.KYC_BASE_URL = baseUrl;
  return spawnSync(process.execPath, ['scripts/deploy.mjs', '--dry-run', '--no-build'], { encoding: 'utf8', env, timeout: 120_000 });
}

describe('npm run deploy', () => {
  for (const [what, value, why] of [
    ['unset', undefined, /KYC_BASE_URL is not set/],
    ['"sandbox"', 'sandbox', /production has no sandbox/],
    ['misspelt', 'vendor.example', /not a URL/],
    ['http', 'http://vendor.example', /https/],
  ] as const) {
    it(`refuses to start with KYC_BASE_URL ${what}`, () => {
      const r = deploy(value);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stderr, why);
      assert.doesNotMatch(r.stdout, /Total Upload/, 'wrangler never ran');
    });
  }

  it('deploys the production entry with an https vendor', () => {
    const r = deploy('https://vendor.example');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Total Upload/);
    assert.match(r.stdout, /env\.VERIFICATIONS/);
    assert.doesNotMatch(r.stdout.slice(r.stdout.indexOf('following bindings')), /SANDBOX_STORE|DEV_SECRETS/);
  });
});
