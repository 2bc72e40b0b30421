/**
 * Faults: the real worker in workerd in front of a fake vendor that misbehaves
 * in every way docs/api.md's "Errors" paragraph names: slow beyond the timeout,
 * hanging, 5xx, 4xx ErrorObject, non-JSON, truncated, refused, reset, and
 * flapping. Every answer must come within KYC_TIMEOUT_MS plus a margin, with
 * the documented status, as an ErrorObject that repeats neither our
 * credentials nor the vendor's text; and however the vendor flaps, a person
 * retrying with one Idempotency-Key is never texted twice.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { happyVendor, startFakeVendor, type Behaviour, type FakeVendor, type VendorRequest } from '../support/fake-vendor';
import type { RunningWorker } from '../support/wrangler';
import {
  assertErrorObject,
  assertNoLeak,
  freshIp,
  headerText,
  pool,
  prng,
  saveResults,
  seedFromEnv,
  startSnapshotWorker,
  startVendorAndWorker,
  stopVendorAndWorker,
} from './support';
import { adultDateOfBirth } from '../support/dates';

const TIMEOUT_MS = 1000;
/** wrangler dev's proxy plus a busy 2-core machine (other test suites may run at the same time). */
const MARGIN_MS = 2000;
const API_KEY = 'faults-api-key-Hy7Ug5Tf4';
const SECRET = 'faults-session-secret-Mn2Bv8Cx-x';
const CUSTOMER = 'faults-customer-8812';
const CREDENTIALS = [API_KEY, SECRET, CUSTOMER];
/** Put in the vendor's error text: must never reach the browser. */
const VENDOR_CANARY = 'VendorSaysZed-Quokka-4471';

let vendor: FakeVendor;
let worker: RunningWorker;

before(async () => {
  ({ vendor, worker } = await startVendorAndWorker({
    KYC_API_KEY: API_KEY,
    KYC_CUSTOMER_ID: CUSTOMER,
    SESSION_SECRET: SECRET,
    KYC_TIMEOUT_MS: String(TIMEOUT_MS),
  }));
});
after(() => stopVendorAndWorker({ vendor, worker }));

const json =
  (status: number, body: unknown): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
const text =
  (status: number, body: string, type = 'text/html'): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': type });
    res.end(body);
  };
const vendorError = (status: number) =>
  json(status, {
    errorCode: 'INVALID_REQUEST',
    errorMsg: `familyName '${VENDOR_CANARY}' is not acceptable`,
    issues: [
      { issue: `'${VENDOR_CANARY}' not allowed`, issueLocation: 'entity.name.familyName' },
      { issue: 'bad', issueLocation: 'phoneNumber' },
    ],
    requestId: 'vendor-req-1',
  });
/**
 * Real time, on purpose (the one timed wait of this file): the worker's vendor
 * timeout (KYC_TIMEOUT_MS) runs on workerd's clock, which a test cannot move,
 * so a fault past it has to be late in real time; and a client that honours
 * Retry-After waits as long as it says.
 */
const later = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const answerLater =
  (ms: number): Behaviour =>
  async (req, res) => {
    await later(ms);
    if (!res.destroyed) await happyVendor(req, res);
  };

interface Fault {
  behaviour: Behaviour;
  /** Answer of /api/onboarding-link and /api/result (/api/ruok: always 502). */
  status: number;
  code: string;
  /** The vendor may have acted (sent the SMS) although the worker could not tell. */
  mayHaveActed: boolean;
}

const FAULTS: Record<string, Fault> = {
  'slow beyond the timeout': { behaviour: answerLater(TIMEOUT_MS * 2.5), status: 504, code: 'VENDOR_TIMEOUT', mayHaveActed: true },
  'headers in time, body too late': {
    behaviour: (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"entity":{"entityId":"e-1"},');
      void later(TIMEOUT_MS * 3).then(() => res.destroyed || res.end('"status":"CREATED","url":"http://127.0.0.1/f","urlExpiry":"x"}'));
    },
    status: 504,
    code: 'VENDOR_TIMEOUT',
    mayHaveActed: true,
  },
  'hanging forever': { behaviour: () => {}, status: 504, code: 'VENDOR_TIMEOUT', mayHaveActed: true },
  '503 with an ErrorObject': { behaviour: vendorError(503), status: 502, code: 'VENDOR_ERROR', mayHaveActed: false },
  '500 with HTML': {
    behaviour: text(500, `<html><body>Internal error ${VENDOR_CANARY}</body></html>`),
    status: 502,
    code: 'VENDOR_ERROR',
    mayHaveActed: false,
  },
  '400 ErrorObject': { behaviour: vendorError(400), status: 400, code: 'VALIDATION_FAILED', mayHaveActed: false },
  '422 ErrorObject': { behaviour: vendorError(422), status: 400, code: 'VALIDATION_FAILED', mayHaveActed: false },
  '401 (our credentials)': { behaviour: vendorError(401), status: 502, code: 'VENDOR_REJECTED', mayHaveActed: false },
  '403 (our credentials)': { behaviour: vendorError(403), status: 502, code: 'VENDOR_REJECTED', mayHaveActed: false },
  '404': { behaviour: vendorError(404), status: 502, code: 'VENDOR_ERROR', mayHaveActed: false },
  '429 from the vendor': { behaviour: vendorError(429), status: 503, code: 'VENDOR_BUSY', mayHaveActed: false },
  'non-JSON 200': { behaviour: text(200, `OK ${VENDOR_CANARY}`), status: 502, code: 'VENDOR_ERROR', mayHaveActed: true },
  'truncated body (connection cut)': {
    behaviour: (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '400' });
      // Cut once the partial body has gone out (its write's callback), not after a guessed time.
      res.write('{"entity":{"entityId":"e-1"},"st', () => res.destroy());
    },
    status: 502,
    code: 'VENDOR_ERROR',
    mayHaveActed: true,
  },
  'truncated JSON': {
    behaviour: text(200, '{"entity":{"entityId":"e-1"},"status":"CRE', 'application/json'),
    status: 502,
    code: 'VENDOR_ERROR',
    mayHaveActed: true,
  },
  'JSON of the wrong shape': { behaviour: json(200, { hello: VENDOR_CANARY }), status: 502, code: 'VENDOR_ERROR', mayHaveActed: true },
  'redirect elsewhere': {
    behaviour: (_req, res) => {
      res.writeHead(302, { Location: 'http://127.0.0.1:9/steal' });
      res.end();
    },
    status: 502,
    code: 'VENDOR_ERROR',
    mayHaveActed: false,
  },
  'connection reset': { behaviour: (_req, res) => void res.destroy(), status: 502, code: 'VENDOR_ERROR', mayHaveActed: false },
};

const PARTNER_HEADERS = (w: RunningWorker) => ({ 'Content-Type': 'application/json', Origin: w.url });

function person(number = '0412 345 678', sendSMS = false) {
  return {
    name: { givenName: 'Ana', familyName: 'Lima' },
    dateOfBirth: adultDateOfBirth(),
    phone: { code: '+61', number },
    consent: true,
    sendSMS,
  };
}

interface Timed {
  status: number;
  ms: number;
  text: string;
  headers: Headers;
}

async function timed(w: RunningWorker, path: string, init: RequestInit): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(w.url + path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'CF-Connecting-IP': freshIp(20) },
  });
  const text = await res.text();
  return { status: res.status, ms: Math.round(performance.now() - t0), text, headers: res.headers };
}

const figures: { route: string; fault: string; status: number; ms: number }[] = [];

function check(a: Timed, route: string, fault: string, status: number, code: string): void {
  const context = `${route} with vendor "${fault}"`;
  figures.push({ route, fault, status: a.status, ms: a.ms });
  assert.equal(a.status, status, `${context}: ${a.text.slice(0, 300)}`);
  const e = assertErrorObject(a.text, a.headers, context);
  assert.equal(e.errorCode, code, context);
  assert.ok(a.ms <= TIMEOUT_MS + MARGIN_MS, `${context}: answered in ${a.ms} ms`);
  if (status === 504) assert.ok(a.ms >= TIMEOUT_MS * 0.9, `${context}: a 504 before the timeout (${a.ms} ms)`);
  assertNoLeak(a.text + headerText(a.headers), [...CREDENTIALS, VENDOR_CANARY, 'vendor-req-1', 'INVALID_REQUEST'], context);
  if (status === 400) {
    assert.deepEqual(
      e.issues.map((i) => i.issueLocation).sort(),
      ['name.familyName', 'phone.number'],
      `${context}: vendor fields on our names`,
    );
  }
}

describe('faults of the vendor, in workerd', () => {
  // /api/ruok first: it caches a vendor OK for a few seconds, which would hide later faults.
  it('/api/ruok answers 502 for every vendor fault, in time', async () => {
    for (const [name, f] of Object.entries(FAULTS)) {
      vendor.behave(f.behaviour);
      const a = await timed(worker, '/api/ruok', {});
      check(a, '/api/ruok', name, 502, 'VENDOR_ERROR');
    }
  });

  it('/api/onboarding-link answers every vendor fault with its documented status, in time', async () => {
    for (const [name, f] of Object.entries(FAULTS)) {
      vendor.behave(f.behaviour);
      const a = await timed(worker, '/api/onboarding-link', {
        method: 'POST',
        headers: PARTNER_HEADERS(worker),
        body: JSON.stringify(person()),
      });
      check(a, '/api/onboarding-link', name, f.status, f.code);
    }
  });

  it('/api/result answers every vendor fault with its documented status, in time', async () => {
    // The vendor's 429 last: it pauses every poll of the partner until its Retry-After (docs/operations.md), so a fault
    // after it would never reach the vendor.
    const faults = Object.entries(FAULTS).sort(([a], [b]) => Number(a === '429 from the vendor') - Number(b === '429 from the vendor'));
    for (const [name, f] of faults) {
      // A fresh verification per fault: the worker asks the vendor about one at most once per poll interval.
      vendor.behave(happyVendor);
      const link = await timed(worker, '/api/onboarding-link', {
        method: 'POST',
        headers: PARTNER_HEADERS(worker),
        body: JSON.stringify(person()),
      });
      assert.equal(link.status, 200, link.text);
      const session = JSON.parse(link.text).session as string;
      vendor.behave(f.behaviour);
      const a = await timed(worker, '/api/result', { method: 'POST', headers: PARTNER_HEADERS(worker), body: JSON.stringify({ session }) });
      if (name === '404') {
        // The vendor knows no check yet: not finished, not a fault (and not retried as one).
        assert.equal(a.status, 200, a.text);
        assert.equal(JSON.parse(a.text).checkStatus, 'CHECKING');
        continue;
      }
      check(a, '/api/result', name, f.status, f.code);
    }
  });

  it('a refused connection (nothing listens) is a quick 502 on every route', async () => {
    // A vendor that answers long enough to create a verification, then stops listening.
    const gone = await startFakeVendor();
    gone.behave(happyVendor);
    const down = await startSnapshotWorker({
      vars: {
        KYC_BASE_URL: gone.url,
        KYC_API_KEY: API_KEY,
        KYC_CUSTOMER_ID: CUSTOMER,
        SESSION_SECRET: SECRET,
        KYC_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    try {
      const link = await timed(down, '/api/onboarding-link', {
        method: 'POST',
        headers: PARTNER_HEADERS(down),
        body: JSON.stringify(person()),
      });
      assert.equal(link.status, 200, link.text);
      const session = JSON.parse(link.text).session as string;
      await gone.close();
      check(await timed(down, '/api/ruok', {}), '/api/ruok', 'connection refused', 502, 'VENDOR_ERROR');
      check(
        await timed(down, '/api/onboarding-link', { method: 'POST', headers: PARTNER_HEADERS(down), body: JSON.stringify(person()) }),
        '/api/onboarding-link',
        'connection refused',
        502,
        'VENDOR_ERROR',
      );
      check(
        await timed(down, '/api/result', { method: 'POST', headers: PARTNER_HEADERS(down), body: JSON.stringify({ session }) }),
        '/api/result',
        'connection refused',
        502,
        'VENDOR_ERROR',
      );
    } finally {
      await down.stop();
    }
  });

  it('a flapping vendor never makes a person get two text messages, and every answer comes in time', async () => {
    const seed = seedFromEnv(4471);
    const r = prng(seed);
    const names = Object.keys(FAULTS).filter((n) => !n.startsWith('4')); // 4xx are not flapping
    // Which fault (or success) answers each vendor request, and whether it could have sent an SMS.
    const acted = new Map<string, number>();
    const calls = new Map<string, number>();
    vendor.behave(async (req: VendorRequest, res: ServerResponse) => {
      const body = JSON.parse(req.body || '{}') as { phoneNumber?: string; sendSMS?: boolean };
      const who = body.phoneNumber ?? '?';
      calls.set(who, (calls.get(who) ?? 0) + 1);
      const name = r.chance(0.4) ? 'ok' : r.pick(names);
      const f = name === 'ok' ? undefined : FAULTS[name]!;
      if (body.sendSMS && (!f || f.mayHaveActed)) acted.set(who, (acted.get(who) ?? 0) + 1);
      await (f ? f.behaviour(req, res) : happyVendor(req, res));
    });
    const people = Array.from({ length: 24 }, (_, i) => ({
      number: `04${String(10_000_000 + i * 7919).padStart(8, '0')}`,
      key: `flap-${seed}-${i}-${r.alnum(12)}`,
    }));
    const answers: { status: number; ms: number; replayed: boolean }[] = [];
    let late = 0;
    await pool(people, 8, async (p) => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const a = await timed(worker, '/api/onboarding-link', {
          method: 'POST',
          headers: { ...PARTNER_HEADERS(worker), 'Idempotency-Key': p.key },
          body: JSON.stringify(person(p.number, true)),
        });
        answers.push({ status: a.status, ms: a.ms, replayed: a.headers.get('idempotent-replayed') === 'true' });
        if (a.ms > TIMEOUT_MS + MARGIN_MS) late++;
        assert.ok([200, 409, 429, 502, 504].includes(a.status), `unexpected ${a.status}: ${a.text.slice(0, 200)}`);
        if (a.status !== 200) assertErrorObject(a.text, a.headers, `flapping ${p.key}`);
        if (a.status === 200) break;
        await later(a.status === 409 ? 1000 : 50); // as a client would: the Retry-After (1 s) of a busy key, else a short backoff
      }
    });
    const duplicates = [...acted].filter(([, n]) => n > 1);
    const replays = answers.filter((a) => a.replayed).length;
    const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
    saveResults('faults', {
      date: new Date().toISOString(),
      timeoutMs: TIMEOUT_MS,
      marginMs: MARGIN_MS,
      cases: figures,
      slowestMs: Math.max(...figures.map((f) => f.ms)),
      flapping: {
        seed,
        people: people.length,
        requests: answers.length,
        vendorCalls: [...calls.values()].reduce((a, b) => a + b, 0),
        byStatus: answers.reduce<Record<number, number>>((m, a) => ((m[a.status] = (m[a.status] ?? 0) + 1), m), {}),
        replays,
        peopleTextedAtMostOnce: people.length - duplicates.length,
        duplicateTexts: duplicates.length,
        slowestMs: ms[ms.length - 1],
      },
    });
    assert.deepEqual(duplicates, [], 'somebody could have been texted twice');
    assert.equal(late, 0, 'answers later than the timeout plus margin');
    assert.ok(replays > 0, 'the run exercised replays of an uncertain outcome');
    assert.ok(
      answers.some((a) => a.status === 200),
      'some people got through',
    );
    assert.ok(
      [...acted.values()].some((n) => n === 1),
      'some texts went out',
    );
  });
});
