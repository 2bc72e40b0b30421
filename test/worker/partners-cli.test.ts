/**
 * `npm run partners` against the local state of a running worker (wrangler
 * dev, workerd) in front of a fake vendor: keygen, add, list, show, update,
 * rotate-key (requests keep succeeding through it), remove; bad input is
 * refused before anything is written; no output of the CLI holds a secret.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adultDateOfBirth } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startWorker, type RunningWorker } from '../support/wrangler';
import { isoInstantAfter } from '../support/dates';
import { until } from '../support/wait';
import { partnersCli, type CliRun } from '../support/partners-cli';

const ORIGIN = 'https://cli-partner.example';
const OLD_KEY = 'cli-vendor-key-OLD-4Jr8';
const NEW_KEY = 'cli-vendor-key-NEW-9Wq3';
const TS_SECRET = 'cli-turnstile-secret-Pz5';
const CACHE_SECONDS = 1;

const person = {
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

let dir: string;
let vendor: FakeVendor;
let worker: RunningWorker;
const outputs: string[] = [];

/** A run of the CLI in this suite's state; its output is kept for a failing test's message. */
async function cli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliRun> {
  const r = await partnersCli(dir, args, env, stdin);
  outputs.push(r.stdout, r.stderr);
  return r;
}

let ipCounter = 0;
function link(): Promise<Response> {
  return fetch(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: ORIGIN, 'CF-Connecting-IP': `198.18.0.${(ipCounter++ % 250) + 1}` },
    body: JSON.stringify(person),
  });
}

/** Polls until `pass` holds (a change reaches the worker within PARTNERS_CACHE_SECONDS). */
async function eventually(what: string, pass: () => Promise<boolean>): Promise<void> {
  await until(pass, { what: `${what} (within PARTNERS_CACHE_SECONDS)`, timeoutMs: (CACHE_SECONDS + 10) * 1000 });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kyc-partners-cli-'));
  vendor = await startFakeVendor((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    const key = req.headers['api_key'];
    const child = req.headers['x-service-customerchildid'];
    if (child !== 'cli-child' || (key !== OLD_KEY && key !== NEW_KEY)) {
      res.statusCode = 401;
      res.end(JSON.stringify({ errorCode: 'AUTH', errorMsg: 'no', issues: [], requestId: 'x' }));
      return;
    }
    res.end(
      JSON.stringify({
        entity: { entityId: 'e-cli' },
        status: 'CREATED',
        url: 'http://127.0.0.1/flow/cli',
        urlExpiry: isoInstantAfter(3600),
      }),
    );
  });
  // The local worker's settings, as a developer's .dev.vars would hold them.
  writeFileSync(join(dir, 'dev.vars'), `KYC_BASE_URL=${vendor.url}\n`);
});

after(async () => {
  await worker?.stop();
  await vendor?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run partners, against the local state', () => {
  it('keygen puts the private key in .dev.vars only, and its public half in the registry', async () => {
    const r = await cli(['keygen']);
    assert.equal(r.code, 0, r.stderr);
    const vars = readFileSync(join(dir, 'dev.vars'), 'utf8');
    const d = /"d":"([^"]+)"/.exec(vars)?.[1];
    assert.ok(d, 'a private JWK in dev.vars');
    assert.ok(!r.stdout.includes(d) && !r.stderr.includes(d), 'the private key is not printed');
    worker = await startWorker({
      persistTo: join(dir, 'state'),
      envFile: join(dir, 'dev.vars'),
      vars: {
        KYC_API_KEY: 'cli-operator-key',
        KYC_CUSTOMER_ID: 'cli-customer',
        SESSION_SECRET: 'cli-session-secret-123456-xxxxxx',
        PARTNERS_CACHE_SECONDS: String(CACHE_SECONDS),
      },
    });
    assert.equal((await link()).status, 403, 'no partner yet');
  });

  it('refuses bad input before writing anything, naming each problem', async () => {
    const bad = await cli(
      [
        'add',
        'cli',
        '--name',
        'CLI Bank',
        '--origin',
        'https://cli-partner.example/shop',
        '--child-id',
        ' ',
        '--webhook-url',
        'http://hooks.example/',
      ],
      { PARTNER_API_KEY: OLD_KEY },
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /origins:/);
    assert.match(bad.stderr, /childId:/);
    assert.match(bad.stderr, /webhookUrl:/);
    const inArgs = await cli(['add', 'cli', '--api-key', OLD_KEY]);
    assert.equal(inArgs.code, 2);
    assert.match(inArgs.stderr, /never go in arguments/);
    const stripeInArgs = await cli(['add', 'cli', '--stripe-secret-key', 'sk_test_cliPartner123']);
    assert.equal(stripeInArgs.code, 2);
    assert.match(stripeInArgs.stderr, /never go in arguments/);
    // This deployment's idv is a real vendor (live outcomes) and it has no Stripe key of its own.
    const withStripe = ['add', 'cli', '--name', 'CLI Bank', '--origin', ORIGIN, '--child-id', 'cli-child', '--vendors', 'idv,stripe'];
    const noStripeKey = await cli(withStripe, { PARTNER_API_KEY: OLD_KEY });
    assert.equal(noStripeKey.code, 2);
    assert.match(noStripeKey.stderr, /vendors: stripe has no credentials/);
    const testKey = await cli(withStripe, { PARTNER_API_KEY: OLD_KEY, PARTNER_STRIPE_SECRET_KEY: 'sk_test_cliPartner123' });
    assert.equal(testKey.code, 2);
    assert.match(testKey.stderr, /stripeSecretKey: is a test key in a live deployment/);
    assert.doesNotMatch(testKey.stderr + testKey.stdout, /sk_test_cliPartner123/);
    const list = await cli(['list']);
    assert.match(list.stdout, /no partners/);
  });

  it('add, list and show; the partner works at once (a miss is not cached past the bound)', async () => {
    const add = await cli(
      ['add', 'cli', '--name', 'CLI Bank', '--origin', ORIGIN, '--child-id', 'cli-child', '--turnstile-secret-file', join(dir, 'ts')],
      { PARTNER_API_KEY: OLD_KEY },
      undefined,
    ).catch(() => undefined);
    // (the Turnstile secret file does not exist yet: a clean failure, nothing written)
    assert.equal(add?.code, 1);
    assert.match((await cli(['list'])).stdout, /no partners/);
    writeFileSync(join(dir, 'ts'), TS_SECRET);
    const added = await cli(['add', 'cli', '--name', 'CLI Bank', '--origin', ORIGIN, '--child-id', 'cli-child'], {
      PARTNER_API_KEY: OLD_KEY,
    });
    assert.equal(added.code, 0, added.stderr);
    const list = await cli(['list']);
    assert.match(list.stdout, /cli\s+CLI Bank\s+cli-child\s+https:\/\/cli-partner\.example\s+seal-/);
    const show = await cli(['show', 'cli']);
    const shown = JSON.parse(show.stdout);
    assert.equal(shown.childId, 'cli-child');
    assert.match(shown.apiKey, /^set \(sealed to seal-/);
    // The path --remote takes (wrangler's kv commands), here on the same local state.
    const viaWrangler = await cli(['show', 'cli', '--via-wrangler']);
    assert.equal(viaWrangler.code, 0, viaWrangler.stderr);
    assert.deepEqual(JSON.parse(viaWrangler.stdout), shown);
    await eventually('the new partner answers', async () => (await link()).status === 200);
    assert.equal(vendor.requests.at(-1)!.headers['api_key'], OLD_KEY);
  });

  it('update changes only what is given', async () => {
    const r = await cli(['update', 'cli', '--flow-id', 'flow-cli-2']);
    assert.equal(r.code, 0, r.stderr);
    await eventually('the new flow is used', async () => {
      await link();
      return JSON.parse(vendor.requests.at(-1)!.body).flowId === 'flow-cli-2';
    });
    assert.equal(vendor.requests.at(-1)!.headers['x-service-customerchildid'], 'cli-child');
    const shown = JSON.parse((await cli(['show', 'cli'])).stdout);
    assert.equal(shown.displayName, 'CLI Bank');
    assert.equal(shown.flowId, 'flow-cli-2');
  });

  it('rotate-key: requests keep succeeding while the key changes, then carry the new key', async () => {
    let running = true;
    const statuses: number[] = [];
    const traffic = (async () => {
      while (running) statuses.push((await link()).status);
    })();
    const r = await cli(['rotate-key', 'cli', '--api-key-file', '-'], {}, `${NEW_KEY}\n`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /revoke the old key at the vendor only after/);
    await eventually('the new key is used', async () => vendor.requests.at(-1)!.headers['api_key'] === NEW_KEY);
    running = false;
    await traffic;
    assert.ok(statuses.length > 3, `only ${statuses.length} requests ran during the rotation`);
    assert.deepEqual([...new Set(statuses)], [200], 'every request during the rotation succeeded');
  });

  it('remove: the partner is refused within the bound', async () => {
    const r = await cli(['remove', 'cli']);
    assert.equal(r.code, 0, r.stderr);
    await eventually('the removed partner is refused', async () => (await link()).status === 403);
    assert.match((await cli(['list'])).stdout, /no partners/);
    assert.equal((await cli(['show', 'cli'])).code, 2);
  });

  it('printed no secret, ever', () => {
    const all = outputs.join('\n');
    for (const s of [OLD_KEY, NEW_KEY, TS_SECRET]) assert.ok(!all.includes(s), 'a secret was printed');
  });
});
