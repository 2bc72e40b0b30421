/**
 * The webhook outbox in workerd (Miniflare, the sandbox as the vendor, the
 * environment's partner with a /v1 key and the environment's webhook): an
 * event is kept in its verification's Durable Object until delivered, so a
 * worker killed while a delivery waits for its retry delivers it after a
 * restart on the same persisted state (the queue, kept in memory, loses its
 * message; the object's alarm, kept with its storage, does not); and a
 * receiver's `Retry-After: 0` never shortens the retry schedule.
 *
 * No test waits for a retry: the restart is the wait (the retry is due one
 * second after the failed attempt; the overdue alarm runs when the restarted
 * runtime loads its alarms), and the schedule of the other case is an hour,
 * read back from `GET /v1` instead of waited for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newServerKey } from '../../worker/server-api/keys';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import { freePort } from '../support/wrangler';
import { until } from '../support/wait';

const SECRET = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
const KEY = newServerKey('test');

interface Hit {
  id: string;
  body: { type: string; data: { verificationId: string; sequence?: number } };
  verified: boolean;
}
/** What the receiver answers each verification's attempts: a status and headers per attempt (then 200). */
const plans = new Map<string, { status: number; headers?: Record<string, string> }[]>();
const hits: Hit[] = [];
let receiver: Server;

before(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let verified = true;
      try {
        new Webhook(SECRET).verify(raw, headers);
      } catch {
        verified = false;
      }
      const body = JSON.parse(raw) as Hit['body'];
      hits.push({ id: headers['webhook-id'], body, verified });
      const n = hits.filter((h) => h.body.data.verificationId === body.data.verificationId).length;
      const plan = plans.get(body.data.verificationId)?.[n - 1] ?? { status: 200 };
      res.writeHead(plan.status, plan.headers ?? {}).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
});
after(async () => {
  receiver.closeAllConnections();
  await new Promise((ok) => receiver.close(ok));
});

const hooksUrl = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const hitsOf = (vid: string) => hits.filter((h) => h.body.data.verificationId === vid);

/** Resolves once `vid` has `count` attempts at the receiver (an event the test waits on, never a fixed time). */
function attempts(vid: string, count: number, withinMs = 20_000): Promise<Hit[]> {
  return until(() => hitsOf(vid).length >= count && hitsOf(vid), {
    what: `${count} attempt(s) for ${vid}`,
    timeoutMs: withinMs,
    detail: () => `${hitsOf(vid).length} attempt(s) arrived`,
  });
}

function start(vars: Record<string, string>, extra: { persist?: string; port?: number } = {}): Promise<MiniflareWorker> {
  return startMiniflareWorker({
    vars: { WEBHOOK_URL: hooksUrl(), WEBHOOK_SECRET: SECRET, PARTNER_SERVER_KEYS: KEY, WEBHOOK_TIMEOUT_MS: '2000', ...vars },
    ...extra,
  });
}

const v1 = (w: MiniflareWorker, path: string, body?: unknown) =>
  fetch(w.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

/** A verification started and canceled through /v1: its `verification.canceled` goes out. */
async function canceled(w: MiniflareWorker, plan: { status: number; headers?: Record<string, string> }[]): Promise<string> {
  const created = await v1(w, '/v1/verifications', { customerRef: 'acct-outbox' });
  assert.equal(created.status, 201, await created.clone().text());
  const { verificationId } = (await created.json()) as { verificationId: string };
  plans.set(verificationId, plan);
  const res = await v1(w, `/v1/verifications/${verificationId}/cancel`, {});
  assert.equal(res.status, 200, await res.clone().text());
  return verificationId;
}

interface V1 {
  webhook: {
    state: string;
    attempts: number;
    undelivered?: {
      webhookId: string;
      type: string;
      sequence: number;
      state: string;
      attempts: number;
      lastAttemptAt?: string;
      nextAttemptAt?: string;
    }[];
  };
}

describe('the webhook outbox', () => {
  it('delivers an event whose retry was waiting when the worker was killed, after a restart on the same state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-outbox-'));
    const port = await freePort();
    const vars = { WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_MAX_ATTEMPTS: '5' };
    let w: MiniflareWorker | undefined = await start(vars, { persist: dir, port });
    try {
      const vid = await canceled(w, [{ status: 503 }]);
      const [first] = await attempts(vid, 1);
      // Killed while the retry waits (the process ends: its in-memory queue, and any message on it, with it).
      const killedAt = Date.now();
      await w.dispose();
      w = undefined; // disposed once: a failed restart must not dispose it again (and hide why it failed)
      assert.equal(hitsOf(vid).length, 1, 'no second attempt before the kill');
      w = await start(vars, { persist: dir, port });
      // The restarted runtime runs the overdue alarm of the verification's object: the retry, from its own storage.
      const all = await attempts(vid, 2);
      const second = all[1]!;
      assert.ok(Date.now() - killedAt < 20_000);
      assert.equal(second.id, first!.id, 'the same webhook-id');
      assert.deepEqual(second.body, first!.body, 'the same body');
      assert.equal(second.body.type, 'verification.canceled');
      assert.equal(second.body.data.sequence, 1);
      assert.ok(second.verified, 'signed with the secret');
      // Delivered: nothing owed any more.
      const got = await until(
        async () => ((got) => got.webhook.state === 'delivered' && got)((await (await v1(w!, `/v1/verifications/${vid}`)).json()) as V1),
        { what: 'the verification to record the delivery', timeoutMs: 20_000 },
      );
      assert.deepEqual(got.webhook.undelivered, []);
    } finally {
      await w?.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps to the schedule when the receiver answers 503 with Retry-After: 0, and GET /v1 shows the undelivered event', async () => {
    const w = await start({ WEBHOOK_RETRY_SCHEDULE: '3600,7200', WEBHOOK_MAX_ATTEMPTS: '3' });
    try {
      const vid = await canceled(w, [{ status: 503, headers: { 'Retry-After': '0' } }]);
      await attempts(vid, 1);
      let event: NonNullable<V1['webhook']['undelivered']>[number] | undefined;
      await until(
        async () => {
          const got = (await (await v1(w, `/v1/verifications/${vid}`)).json()) as V1;
          event = got.webhook.undelivered?.[0];
          return event?.state === 'failed';
        },
        { what: 'the failed attempt recorded', timeoutMs: 20_000, detail: () => JSON.stringify(event) },
      );
      assert.ok(event, 'the undelivered event is listed');
      assert.equal(event.state, 'failed');
      assert.equal(event.attempts, 1);
      assert.equal(event.type, 'verification.canceled');
      assert.equal(event.sequence, 1);
      const wait = Date.parse(event.nextAttemptAt!) - Date.parse(event.lastAttemptAt!);
      assert.ok(wait >= 3600_000, `the next attempt is the schedule's step (an hour) away, not ${wait} ms`);
      assert.equal(hitsOf(vid).length, 1, 'no attempt made at once');
    } finally {
      await w.dispose();
    }
  });
});
