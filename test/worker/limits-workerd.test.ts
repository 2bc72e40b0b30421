/**
 * Limits that do not multiply per partner, in workerd with the
 * real bindings: the rate-limit bindings of wrangler.toml (given small
 * limits here) and the LIMITS Durable Object. Three partners share the
 * worker: the two demo partners on its own origin (127.0.0.1 and localhost)
 * and the environment's partner (ALLOWED_ORIGINS). One client claiming all
 * three origins is held to one budget; refusals count; one number over three
 * partners gets at most the per-number limit, and the daily cap; a client
 * and a partner hold only so many open verifications; /handoff spends the
 * client's budget too.
 *
 * The rate-limit binding counts in fixed 60-second windows aligned to the
 * clock: a burst that straddles a window boundary is run again with a fresh
 * client, so no assertion depends on where in the minute the test started.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { adultDateOfBirth } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';

const ENV_PARTNER = 'https://partner-c.example';
const workers: MiniflareWorker[] = [];
after(async () => {
  for (const w of workers) await w.dispose();
});

async function start(options: Parameters<typeof startMiniflareWorker>[0]): Promise<MiniflareWorker> {
  const w = await startMiniflareWorker(options);
  workers.push(w);
  return w;
}

/** The three partners' page origins on this worker. */
const partnersOf = (w: MiniflareWorker) => [w.url, w.url.replace('127.0.0.1', 'localhost'), ENV_PARTNER];

let ipSeq = 0;
const freshIp = () => `198.18.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;

const person = (over: Record<string, unknown> = {}) => ({
  name: { givenName: 'Lim', familyName: 'Its' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
  ...over,
});

function link(w: MiniflareWorker, origin: string, ip: string, body: unknown = person()) {
  return fetch(`${w.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin, 'CF-Connecting-IP': ip },
    body: JSON.stringify(body),
  });
}

/** Runs `burst` with a fresh client until it fits in one rate-limit window (at most three tries). */
async function inOneWindow<T>(burst: (ip: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const started = Math.floor(Date.now() / 60_000);
    const out = await burst(freshIp());
    if (Math.floor(Date.now() / 60_000) === started || attempt === 2) return out;
  }
}

describe('limits that do not multiply per partner, in workerd', () => {
  it('one client claiming three partners’ origins is held to one budget; refusals (403) count, and the 429 is readable', async () => {
    const w = await start({ ipLimit: 6, vars: { ALLOWED_ORIGINS: ENV_PARTNER } });
    const origins = partnersOf(w);
    const statuses = await inOneWindow(async (ip) => {
      const out: number[] = [];
      for (let i = 0; i < 9; i++) {
        const res = await link(w, origins[i % 3]!, ip, person({ consent: false })); // a 400: no vendor call, still counted
        await res.body?.cancel();
        out.push(res.status);
      }
      return out;
    });
    assert.deepEqual(statuses, [400, 400, 400, 400, 400, 400, 429, 429, 429], 'six in all, not six per partner');

    const refused = await inOneWindow(async (ip) => {
      for (let i = 0; i < 6; i++) {
        const res = await link(w, `https://unknown-${i}.example`, ip);
        assert.equal(res.status, 403);
        await res.body?.cancel();
      }
      return link(w, origins[0]!, ip);
    });
    assert.equal(refused.status, 429, 'six refusals spent the budget');
    assert.equal(refused.headers.get('Access-Control-Allow-Origin'), origins[0], 'the page can read why');
    assert.equal(refused.headers.get('Cache-Control'), 'no-store');
    assert.match(refused.headers.get('Retry-After') ?? '', /^\d+$/);
  });

  it('/handoff pages spend the same client budget (a calm page when it is spent)', async () => {
    const w = await start({ ipLimit: 4 });
    const last = await inOneWindow(async (ip) => {
      let res: Response | undefined;
      for (let i = 0; i < 5; i++) {
        await res?.body?.cancel();
        res = await fetch(`${w.url}/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=${'A'.repeat(22)}`, { headers: { 'CF-Connecting-IP': ip } });
      }
      return res!;
    });
    assert.equal(last.status, 429);
    assert.match(await last.text(), /Please wait a moment/);
  });

  it('one number over three partners gets at most the per-number limit a minute', async () => {
    const w = await start({ smsLimit: 3, vars: { ALLOWED_ORIGINS: ENV_PARTNER } });
    const origins = partnersOf(w);
    const number = { code: '+61', number: '0412 555 019' };
    const statuses = await inOneWindow(async () => {
      const out: number[] = [];
      for (let i = 0; i < 9; i++) {
        // A fresh client each time: only the number is the same.
        const res = await link(w, origins[i % 3]!, freshIp(), person({ phone: number, sendSMS: true }));
        out.push(res.status);
        await res.body?.cancel();
      }
      return out;
    });
    assert.equal(statuses.filter((s) => s === 200).length, 3, `three texts in all: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 429).length, 6);
  });

  it('one number gets at most LIMIT_SMS_PER_NUMBER_PER_DAY texts across partners, however the minutes go', async () => {
    const w = await start({ smsLimit: 100, vars: { ALLOWED_ORIGINS: ENV_PARTNER, LIMIT_SMS_PER_NUMBER_PER_DAY: '4' } });
    const origins = partnersOf(w);
    const number = { code: '+61', number: '0412 555 020' };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await link(w, origins[i % 3]!, freshIp(), person({ phone: number, sendSMS: true }));
      statuses.push(res.status);
      if (res.status === 429) assert.match(res.headers.get('Retry-After') ?? '', /^\d+$/);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429, 429]);
  });

  it('a client holds at most LIMIT_OPEN_PER_IP open verifications across partners; one that ends gives its place back', async () => {
    const w = await start({ vars: { ALLOWED_ORIGINS: ENV_PARTNER, LIMIT_OPEN_PER_IP: '3' } });
    const origins = partnersOf(w);
    const ip = freshIp();
    const links: { url: string; session: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await link(w, origins[i]!, ip);
      assert.equal(res.status, 200, await res.clone().text());
      links.push((await res.json()) as { url: string; session: string });
    }
    const fourth = await link(w, origins[0]!, ip);
    assert.equal(fourth.status, 429, 'a fourth open verification, whichever partner');
    await fourth.body?.cancel();
    // Another client is not held by this one's verifications.
    assert.equal((await link(w, origins[0]!, freshIp())).status, 200);
    // The first ends (the person completes; the result is final): its place is free again.
    const flow = await fetch(links[0]!.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    assert.equal(flow.status, 303);
    const final = await fetch(`${w.url}/api/result`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: origins[0]!, 'CF-Connecting-IP': ip },
      body: JSON.stringify({ session: links[0]!.session }),
    });
    assert.equal(((await final.json()) as { checkStatus: string }).checkStatus, 'CHECKED_SUCCESS_CLEAR');
    const again = await link(w, origins[1]!, ip);
    assert.equal(again.status, 200, await again.clone().text());
  });

  it('a partner holds at most LIMIT_OPEN_PER_PARTNER open verifications, whatever the clients', async () => {
    const w = await start({ vars: { ALLOWED_ORIGINS: ENV_PARTNER, LIMIT_OPEN_PER_PARTNER: '2' } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await link(w, ENV_PARTNER, freshIp());
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    const other = await link(w, w.url, freshIp());
    assert.equal(other.status, 200, 'another partner is not held by it');
  });

  it('a partner’s vendor pause (its 429) is kept by the LIMITS object: lengthened, never shortened, gone once it ends', async () => {
    const w = await start({});
    const ns = await w.mf.getDurableObjectNamespace('LIMITS');
    const key = 'vendor-paused alpha';
    const limits = ns.get(ns.idFromName(key)) as unknown as {
      pause(key: string, until: number): Promise<number>;
      pausedUntil(key: string): Promise<number | null>;
    };
    const now = Date.now();
    assert.equal(await limits.pausedUntil(key), null);
    assert.equal(await limits.pause(key, now + 120_000), now + 120_000);
    assert.equal(await limits.pause(key, now + 60_000), now + 120_000, 'an earlier end does not shorten it');
    assert.equal(await limits.pausedUntil(key), now + 120_000);
    assert.equal(await limits.pause(key, now + 180_000), now + 180_000);
    // One that has ended is no pause (an end in the past stands for one that ran out).
    assert.equal(await limits.pause('vendor-paused beta', now - 1), now - 1);
    assert.equal(await limits.pausedUntil('vendor-paused beta'), null);
  });
});
