/**
 * docs/vendors.md is true, followed as written: its `npm start` line (the
 * environment it sets) starts the local stack on Stripe, whose link is a
 * session of the Stripe double and whose outcome docs/sandbox.md's `npm run
 * sandbox -- complete --outcome verified` sets; its capabilities example is
 * what `GET /v1/capabilities` answers with the defaults.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adultDateOfBirth } from '../support/dates';
import { ROOT } from '../support/wrangler';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { useNodeTwins } from '../support/node-twins';
import { assertStopped, startStack } from './helpers';

const DOC = readFileSync(join(ROOT, 'docs/vendors.md'), 'utf8');
const blocks = (lang: string) => [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

/** The environment a documented `npm start` line sets (`NAME=value … npm start`). */
function startLine(): Record<string, string> {
  const line = blocks('sh')
    .flatMap((b) => b.split('\n'))
    .find((l) => /\bnpm start\b/.test(l));
  assert.ok(line, 'docs/vendors.md shows how to start the stack');
  return Object.fromEntries([...line.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

describe('docs/vendors.md, followed', () => {
  it('its capabilities example is what /v1/capabilities answers with the defaults', async () => {
    const example = JSON.parse(blocks('json')[0]!) as unknown;
    const key = `kyc_sk_test_${'d'.repeat(43)}`;
    const env = useNodeTwins(nodeEnv({ PARTNER_SERVER_KEYS: key }));
    const res = await nodeApp.request('http://127.0.0.1:8787/v1/capabilities', { headers: { Authorization: `Bearer ${key}` } }, env);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), example);
  });

  it(
    'its npm start line makes Stripe the vendor; docs/sandbox.md’s complete --outcome verified ends it there',
    { timeout: 120_000 },
    async () => {
      const vars = startLine();
      assert.equal(vars.KYC_VENDOR, 'stripe');
      const worker = await startStack(vars);
      try {
        const link = await fetch(`${worker.url}/api/onboarding-link`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: worker.url },
          body: JSON.stringify({
            name: { givenName: 'Ona', familyName: 'Docs' },
            dateOfBirth: adultDateOfBirth(),
            phone: { code: '+61', number: '0412 345 678' },
            consent: true,
          }),
        });
        assert.equal(link.status, 200, await link.clone().text());
        const answer = (await link.json()) as { url: string; verificationId: string };
        assert.match(answer.url, /\/sandbox\/stripe\/flow\//, 'a session of the Stripe double');

        // As docs/sandbox.md writes it.
        const sandboxDoc = readFileSync(join(ROOT, 'docs/sandbox.md'), 'utf8');
        const documented = /npm run sandbox -- complete vrf_… --outcome verified/.exec(sandboxDoc);
        assert.ok(documented, 'docs/sandbox.md shows complete --outcome verified');
        const run = spawnSync(
          process.execPath,
          ['--import', 'tsx', 'scripts/sandbox.ts', 'complete', answer.verificationId, '--outcome', 'verified', '--url', worker.url],
          { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
        );
        assert.equal(run.status, 0, run.stdout + run.stderr);
        assert.match(run.stdout, new RegExp(`${answer.verificationId}: final \\(verified\\) at stripe`));
      } finally {
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
