/**
 * Webhooks in workerd, end to end: the worker (sandbox as the vendor) finds
 * outcomes by its own polling alarm, queues `verification.completed`, and
 * delivers it through its Cloudflare Queue to a real local receiver. The
 * receiver checks every signature with the `standardwebhooks` package and
 * answers as each case asks: 200, 500, a timeout, 429 with Retry-After, 410,
 * or 500 until the attempts run out (then the event is dead).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { adultDateOfBirth } from '../support/dates';
import { startWorker, type RunningWorker } from '../support/wrangler';
import * as wait from '../support/wait';

type Reply = 200 | 410 | 429 | 500 | 'hang';
interface Delivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
}

const SECRET = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
const plans = new Map<string, Reply[]>(); // by verificationId: the answer to each attempt
const deliveries = new Map<string, Delivery[]>();
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
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    let verified: boolean;
    try {
      new Webhook(SECRET).verify(body, headers);
      verified = true;
    } catch {
      verified = false;
    }
    const vid = (JSON.parse(body) as { data: { verificationId: string } }).data.verificationId;
    const list = deliveries.get(vid) ?? [];
    list.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      verified,
    });
    deliveries.set(vid, list);
    const reply = plans.get(vid)?.[list.length - 1] ?? 200;
    if (reply === 'hang') return; // never answers; the worker's timeout ends the attempt
    res.writeHead(reply, reply === 429 ? { 'Retry-After': '1' } : {}).end();
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  worker = await startWorker({
    vars: {
      WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_RETRY_SCHEDULE: '1,1',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_TIMEOUT_MS: '700',
      RESULT_POLL_SECONDS: '5',
      RESULT_POLL_MAX_SECONDS: '10',
    },
  });
});
after(async () => {
  await worker?.stop();
  receiver?.closeAllConnections();
  await new Promise((ok) => receiver?.close(ok));
});

/** A verification whose person completes the hosted flow and never comes back to the widget. */
async function completedElsewhere(reply: Reply[], i: number, customerRef: string): Promise<string> {
  const res = await fetch(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: worker.url, 'CF-Connecting-IP': `198.51.100.${i}` },
    body: JSON.stringify({
      name: { givenName: 'Wen', familyName: `Hook${i}` },
      dateOfBirth: adultDateOfBirth(),
      phone: { code: '+61', number: '0412 345 678' },
      consent: true,
      customerRef,
    }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const link = (await res.json()) as { url: string; verificationId: string };
  plans.set(link.verificationId, reply);
  const flow = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
  assert.equal(flow.status, 303);
  return link.verificationId;
}

async function until(what: string, ok: () => boolean, ms = 45_000): Promise<void> {
  await wait.until(ok, { what, timeoutMs: ms, detail: () => worker.output().slice(-3000) });
}

describe('webhooks through the queue, in workerd', () => {
  it('delivers signed, byte-identical verification.completed events; retries 500, timeouts and 429; 410 stops; the event is dead after the last attempt', async () => {
    const cases: Record<string, Reply[]> = {
      ok: [200],
      err: [500, 200],
      slow: ['hang', 200],
      busy: [429, 200],
      gone: [410],
      dead: [500, 500, 500],
    };
    const ids: Record<string, string> = {};
    let i = 1;
    for (const [name, reply] of Object.entries(cases)) ids[name] = await completedElsewhere(reply, i++, `acct-${name}`);

    const count = (name: string) => deliveries.get(ids[name]!)?.length ?? 0;
    await until(
      'every delivery',
      () => count('ok') >= 1 && count('err') >= 2 && count('slow') >= 2 && count('busy') >= 2 && count('gone') >= 1 && count('dead') >= 3,
    );
    await until('the dead event', () => new RegExp(`"event":"webhook_dead","verificationId":"${ids.dead}"`).test(worker.output()));

    for (const [name, vid] of Object.entries(ids)) {
      const list = deliveries.get(vid)!;
      for (const d of list) {
        assert.equal(d.verified, true, `${name}: signature verifies with standardwebhooks`);
        assert.equal(d.id, list[0]!.id, `${name}: the same webhook-id on every attempt`);
        assert.equal(d.body, list[0]!.body, `${name}: byte-identical body on every attempt`);
      }
      const body = JSON.parse(list[0]!.body);
      assert.equal(body.type, 'verification.completed');
      // The verification's whole public state at the event, nothing personal.
      assert.deepEqual(Object.keys(body.data).sort(), [
        'attempts',
        'checkStatus',
        'createdAt',
        'customerRef',
        'customerRefSource',
        'entityId',
        'expiresAt',
        'finalAt',
        'linkCreatedAt',
        'livemode',
        'partnerOrigin',
        'redacted',
        'result',
        'sequence',
        'status',
        'verificationId',
      ]);
      assert.equal(body.data.status, 'final');
      assert.equal(body.data.sequence, 1, `${name}: the verification's first event`);
      assert.equal(body.data.livemode, false, `${name}: the sandbox made it, so not live`);
      assert.equal(body.data.verificationId, vid);
      assert.equal(body.data.customerRef, `acct-${name}`);
      // A page set it (any script claiming the origin can): receivers match by verificationId.
      assert.equal(body.data.customerRefSource, 'page');
      assert.equal(body.data.partnerOrigin, worker.url);
      assert.ok(!/Wen|Hook\d|0412|412345678/.test(list[0]!.body), `${name}: nothing personal`);
    }
    // A fresh signature per attempt (its timestamp is part of what is signed).
    const err = deliveries.get(ids.err!)!;
    assert.notEqual(err[0]!.signature, err[1]!.signature);
    // 410 stops; the dead case stops at WEBHOOK_MAX_ATTEMPTS: both reported as final (gone, dead), so the outbox owes nothing more.
    await until('the 410 reported', () => new RegExp(`"event":"webhook_gone","verificationId":"${ids.gone}"`).test(worker.output()));
    assert.equal(count('gone'), 1);
    assert.equal(count('dead'), 3);
    assert.equal(count('ok'), 1);
    // Failures are logged with the verification id, never the body.
    assert.match(worker.output(), new RegExp(`"event":"webhook_failed","verificationId":"${ids.err}"`));
    assert.ok(!worker.output().includes('"customerRef"'), 'no webhook body in the log');
  });
});
