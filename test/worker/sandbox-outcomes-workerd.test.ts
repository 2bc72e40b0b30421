/**
 * `npm run sandbox -- complete|requires-input|expire` (scripts/sandbox.ts)
 * against the local stack in workerd: the verification ends as told, at once,
 * and the real signed webhook goes out through the queue to a receiver that
 * checks it with the `standardwebhooks` package. Nobody presses a button on
 * the sandbox's hosted page.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { adultDateOfBirth } from '../support/dates';
import { ROOT, startWorker, type RunningWorker } from '../support/wrangler';
import { until } from '../support/wait';
import { sandboxCommand, UsageError } from '../../scripts/sandbox';

const SECRET = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
/** Verified webhook bodies, by verificationId. */
const received = new Map<string, { type: string; data: Record<string, unknown> }[]>();
let receiver: Server;
let worker: RunningWorker;

const read = (req: IncomingMessage) =>
  new Promise<string>((ok) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => ok(b));
  });

before(async () => {
  receiver = createServer(async (req, res) => {
    const body = await read(req);
    try {
      new Webhook(SECRET).verify(body, {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      });
    } catch {
      res.writeHead(400).end(); // an unsigned body is never counted
      return;
    }
    const event = JSON.parse(body) as { type: string; data: { verificationId: string } };
    received.set(event.data.verificationId, [...(received.get(event.data.verificationId) ?? []), event]);
    res.writeHead(200).end();
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  worker = await startWorker({
    vars: {
      WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      WEBHOOK_SECRET: SECRET,
      // Polling this slow shows the command does not wait for the schedule.
      RESULT_POLL_SECONDS: '600',
      RESULT_POLL_MAX_SECONDS: '900',
    },
  });
});
after(async () => {
  await worker?.stop();
  receiver?.closeAllConnections();
  await new Promise((ok) => receiver?.close(ok));
});

let n = 0;
/** A verification whose person opened the link and has not finished the hosted flow. */
async function openVerification(): Promise<string> {
  n += 1;
  // A fresh connection: while the CLI ran in its own process, workerd closed this one's idle keep-alive socket.
  const res = await fetchAgain(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: worker.url, 'CF-Connecting-IP': `198.51.100.${n}` },
    body: JSON.stringify({
      name: { givenName: 'Ona', familyName: `Demand${'x'.repeat(n)}` },
      dateOfBirth: adultDateOfBirth(),
      phone: { code: '+61', number: '0412 345 678' },
      consent: true,
    }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { verificationId: string }).verificationId;
}

/** fetch, once more when the pooled connection turned out closed (workerd drops idle ones). */
async function fetchAgain(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

/** The CLI as a person runs it. */
function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/sandbox.ts', ...args, '--url', worker.url], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

async function webhookFor(id: string): Promise<{ type: string; data: Record<string, unknown> }> {
  return until(() => received.get(id)?.[0], {
    what: `a signed webhook for ${id}`,
    timeoutMs: 45_000,
    detail: () => worker.output().slice(-3000),
  });
}

describe('npm run sandbox: outcomes on demand, in workerd', () => {
  it('complete --status CHECKED_FAILED ends it at once and the signed verification.completed says so', async () => {
    const id = await openVerification();
    const r = cli('complete', id, '--status', 'CHECKED_FAILED');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`${id}: final \\(CHECKED_FAILED\\)`));
    const event = await webhookFor(id);
    assert.equal(event.type, 'verification.completed');
    assert.equal(event.data.checkStatus, 'CHECKED_FAILED');
    assert.equal(event.data.livemode, false);
  });

  it("requires-input is complete --outcome requires_input: the idv sandbox's NO_MATCH", async () => {
    const id = await openVerification();
    const r = cli('requires-input', id, '--json');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const answer = JSON.parse(r.stdout) as { status: string; checkStatus: string };
    // With attempts left the verification waits for the person's corrections; with none it is final.
    if (answer.status === 'final') assert.equal(answer.checkStatus, 'NO_MATCH');
    else assert.equal(answer.status, 'requires_input');
    const event = await webhookFor(id);
    assert.match(event.type, /^verification\.(completed|requires_input)$/);
  });

  it('expire ends an open verification as expired, with its signed verification.expired', async () => {
    const id = await openVerification();
    const r = cli('expire', id);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`${id}: expired \\(not_finished\\)`));
    const event = await webhookFor(id);
    assert.equal(event.type, 'verification.expired');
    assert.equal(event.data.reason, 'not_finished');

    const again = cli('complete', id, '--status', 'CHECKED_SUCCESS_CLEAR');
    assert.equal(again.status, 1, 'an ended verification stays ended');
    assert.match(again.stderr, /VERIFICATION_ENDED/);
  });

  it('refuses what it cannot do, naming the field', async () => {
    const post = (path: string, body: unknown) =>
      fetchAgain(`${worker.url}/sandbox/verifications/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const id = await openVerification();
    const bad = await post(`${id}/complete`, { status: 'CHECKING' });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { issues: { issueLocation: string }[] }).issues[0]!.issueLocation, 'status');
    const unknown = await post('vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV/complete', { status: 'NO_MATCH' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { issues: { issueLocation: string }[] }).issues[0]!.issueLocation, 'verificationId');
  });

  it('the command line checks its arguments before calling anything', () => {
    assert.throws(() => sandboxCommand(['complete', 'vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV']), UsageError);
    assert.throws(() => sandboxCommand(['complete', 'vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--status', 'PASSED']), UsageError);
    assert.throws(() => sandboxCommand(['expire', 'not-an-id']), UsageError);
    assert.deepEqual(sandboxCommand(['requires-input', 'vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV'], {}), {
      path: '/sandbox/verifications/vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV/complete',
      // Our words: the idv sandbox says them as NO_MATCH (sandbox/outcome.ts STATUS_OF_OUTCOME), Stripe's double as a code.
      body: { outcome: 'requires_input' },
      url: 'http://127.0.0.1:8787',
      json: false,
    });
  });
});
