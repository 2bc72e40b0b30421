/**
 * Trusted outcomes per partner, in workerd (Miniflare, real KV), with the
 * sandbox as the vendor: two registry partners, each with its own child
 * account, webhook endpoint and `whsec_` secret. A verification made through
 * one partner yields a result token whose `aud` is that partner's origin, a
 * `verification.completed` webhook at that partner's endpoint only, signed
 * with that partner's secret only, and it is refused from the other partner.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Webhook } from 'standardwebhooks';
import { buildRecord, writeRecord, type RegistryStore } from '../../worker/partners/admin';
import { DEV_SEALING_KEY, publicJwk } from '../../worker/partners/sealing';
import { adultDateOfBirth, realNow } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import * as wait from '../support/wait';

const secretOf = () => `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
const PARTNERS = {
  alpha: { origin: 'https://alpha.example', child: 'demo-child-a', key: 'sandbox-key-a', secret: secretOf() },
  beta: { origin: 'https://beta.example', child: 'demo-child-b', key: 'sandbox-key-b', secret: secretOf() },
} as const;
type Name = keyof typeof PARTNERS;

interface Delivery {
  path: string;
  verificationId: string;
  /** Which partners' secrets verify its signature. */
  verifiesWith: Name[];
}
const deliveries: Delivery[] = [];
let receiver: Server;
let worker: MiniflareWorker;

before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      const verifiesWith = (Object.keys(PARTNERS) as Name[]).filter((n) => {
        try {
          new Webhook(PARTNERS[n].secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      deliveries.push({ path: req.url ?? '', verificationId: JSON.parse(body).data.verificationId, verifiesWith });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  worker = await startMiniflareWorker({
    vars: { RESULT_POLL_SECONDS: '5', RESULT_POLL_MAX_SECONDS: '10', WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_TIMEOUT_MS: '2000' },
  });
  const store: RegistryStore = {
    get: (k) => worker.kv.get(k),
    put: (k, v) => worker.kv.put(k, v),
    delete: (k) => worker.kv.delete(k),
    list: async (p) => (await worker.kv.list({ prefix: p })).keys.map((k) => k.name),
  };
  for (const [id, p] of Object.entries(PARTNERS)) {
    const record = await buildRecord(
      id,
      { displayName: id, origins: [p.origin], childId: p.child, apiKey: p.key, webhookUrl: `${hooks}/${id}`, webhookSecret: p.secret },
      publicJwk(DEV_SEALING_KEY),
      { sandbox: true },
    );
    await writeRecord(store, record);
  }
});
after(async () => {
  await worker?.dispose();
  receiver?.closeAllConnections();
  await new Promise((ok) => receiver?.close(ok));
});

function post(path: string, origin: string, body: unknown): Promise<Response> {
  return fetch(worker.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify(body),
  });
}

async function until<T>(what: string, get: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const seen = await wait.until(async () => ((v) => v !== undefined && { v })(await get()), {
    what,
    timeoutMs: ms,
    detail: () => worker.logs.slice(-20).join('\n'),
  });
  return seen.v;
}

describe('trusted outcomes per partner, in workerd', () => {
  it('token aud, webhook endpoint and webhook secret are the partner’s own; the other partner cannot use the session', async () => {
    const jwks = createRemoteJWKSet(new URL(`${worker.url}/.well-known/jwks.json`));
    const made: Record<string, { session: string; verificationId: string }> = {};
    for (const [name, p] of Object.entries(PARTNERS)) {
      const res = await post('/api/onboarding-link', p.origin, {
        name: { givenName: 'Par', familyName: `Tner${name}` },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
        customerRef: `acct-${name}`,
      });
      assert.equal(res.status, 200, await res.clone().text());
      const link = (await res.json()) as { url: string; session: string; verificationId: string };
      made[name] = link;
      const flow = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
      assert.equal(flow.status, 303);
    }

    // The other partner's origin cannot read a verification through its session.
    const stolen = await post('/api/result', PARTNERS.beta.origin, { session: made.alpha!.session });
    assert.equal(stolen.status, 403);

    for (const [name, p] of Object.entries(PARTNERS) as [Name, (typeof PARTNERS)[Name]][]) {
      const { session, verificationId } = made[name]!;
      const answer = await until(`${name}'s final status`, async () => {
        const r = await post('/api/result', p.origin, { session });
        assert.equal(r.status, 200);
        const a = (await r.json()) as { checkStatus: string; resultToken?: string };
        return a.resultToken ? a : undefined;
      });
      const { payload } = await jwtVerify(answer.resultToken!, jwks, {
        issuer: worker.url,
        audience: p.origin,
        algorithms: ['ES256'],
        currentDate: new Date(realNow()),
      });
      assert.equal(payload.sub, verificationId);
      assert.equal(payload.customer_ref, `acct-${name}`);
      const other = name === 'alpha' ? PARTNERS.beta.origin : PARTNERS.alpha.origin;
      await assert.rejects(jwtVerify(answer.resultToken!, jwks, { audience: other, currentDate: new Date(realNow()) }), /aud/);

      const delivery = await until(`${name}'s webhook`, () => deliveries.find((d) => d.verificationId === verificationId));
      assert.equal(delivery.path, `/${name}`, 'delivered to the partner’s own endpoint');
      assert.deepEqual(delivery.verifiesWith, [name], 'signed with the partner’s own secret, not the other’s');
    }
    // Each verification reached exactly one endpoint.
    for (const { verificationId } of Object.values(made)) {
      assert.deepEqual([...new Set(deliveries.filter((d) => d.verificationId === verificationId).map((d) => d.path))].length, 1);
    }
  });
});
