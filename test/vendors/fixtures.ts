/**
 * The conformance suite's fixtures: each adapter against its double, called
 * in process (the double's Hono app answers the adapter's `fetch`), through
 * a transport the test can make time out, refuse, garble or tamper with,
 * and one clock shared by the adapter and the double.
 */
import { sandbox } from '../../sandbox/app';
import { forceStatus } from '../../sandbox/outcome';
import { clock as sandboxClock, memoryStore } from '../../sandbox/store';
import { signedStripeEvent, settled, STRIPE_SANDBOX_KEY, STRIPE_SANDBOX_WEBHOOK_SECRET } from '../../sandbox/stripe/app';
import type { AdapterContext, VendorAdapter, VendorRef } from '../../worker/vendors/adapter';
import { idvAdapter } from '../../worker/vendors/idv/adapter';
import { stripeAdapter } from '../../worker/vendors/stripe/adapter';
import { rewriteToSandboxPath, SANDBOX_CREDENTIALS } from '../support/vendor-sandbox';
import type { AdapterFixture, AdapterFixtureFactory, ConformanceClock, TransportFault } from './conformance';

const LINK_MAX_MS = 86_400_000;
/** Long enough for a cold first call on a busy machine; the timeout cases wait it out. */
const TIMEOUT_MS = 1000;

/** A clock that starts now and moves only when told; the sandbox's clock follows it. */
export function sharedClock(): ConformanceClock & { restore(): void } {
  let at = Date.now();
  const before = sandboxClock.now;
  sandboxClock.now = () => at;
  return {
    now: () => at,
    advance: (ms) => {
      at += ms;
    },
    restore: () => {
      sandboxClock.now = before;
    },
  };
}

/** A transport into `inner` that counts requests and misbehaves on demand. */
export function transport(inner: (request: Request) => Promise<Response>) {
  const state: { io: number; fault?: TransportFault; rewrite?: (json: unknown) => unknown } = { io: 0 };
  const fetch = async (request: Request): Promise<Response> => {
    state.io++;
    switch (state.fault) {
      case 'timeout':
        return new Promise<Response>((_, reject) => {
          request.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        });
      case 'refused':
        throw new TypeError('fetch failed');
      case 'bad-answer':
        return new Response('<html>Bad gateway</html>', { status: 200, headers: { 'Content-Type': 'text/html' } });
      case 'server-error':
        return new Response('{}', { status: 500, headers: { 'Content-Type': 'application/json' } });
      case undefined:
        break;
    }
    const response = await inner(request);
    if (!state.rewrite || response.status !== 200) return response;
    const json: unknown = await response.json();
    return Response.json(state.rewrite(json), { status: 200 });
  };
  return { state, fetch };
}

function common(clock: ConformanceClock & { restore(): void }, t: ReturnType<typeof transport>) {
  const ctx: AdapterContext = { now: () => clock.now(), linkMaxMs: LINK_MAX_MS, fetch: t.fetch, timeoutMs: TIMEOUT_MS };
  return {
    ctx,
    clock,
    linkMaxMs: LINK_MAX_MS,
    ioCount: () => t.state.io,
    fault: (mode: TransportFault | undefined) => {
      t.state.fault = mode;
    },
    tamper: (rewrite: ((json: unknown) => unknown) | undefined) => {
      t.state.rewrite = rewrite;
    },
    dispose: () => {
      clock.restore();
      memoryStore.clear();
    },
  };
}

const person = {
  name: { givenName: 'Alex', familyName: 'Citizen' },
  dateOfBirth: '1990-01-01',
  phone: { code: '+61', national: '412345678' },
};

let counter = 0;
const nextId = () => `vrf_conformance${(++counter).toString().padStart(6, '0')}`;

const IDV_BASE = 'https://idv.test/sandbox';
const idvFetch = async (request: Request) => sandbox.fetch(rewriteToSandboxPath(request, IDV_BASE), {});
const idvSettings = {
  baseUrl: IDV_BASE,
  ...SANDBOX_CREDENTIALS.childA,
  channel: 'api',
  searchPath: '/v2/kyc/entity/search',
  livemode: false,
};

/** The idv adapter against the sandbox (the spec's vendor double). */
export const idvFixtures: AdapterFixtureFactory = {
  name: 'idv',
  async create(): Promise<AdapterFixture> {
    memoryStore.clear();
    const clock = sharedClock();
    const t = transport(idvFetch);
    const c = common(clock, t);
    const adapter = idvAdapter(c.ctx, idvSettings);
    const STATUS = { verified: 'CHECKED_SUCCESS_CLEAR', retryable: 'NO_MATCH', 'final-failed': 'CHECKED_FAILED' } as const;
    return {
      ...c,
      adapter,
      linkRequest: () => ({ verificationId: nextId(), returnUrl: 'https://partner.test/back', person }),
      invalidLinkRequest: () => ({ verificationId: nextId(), returnUrl: 'not a url', person }),
      settle: async (ref, ending) => {
        const done = await forceStatus(
          memoryStore,
          { entityId: ref.subject, ...(ref.check ? { checkId: ref.check } : {}) },
          STATUS[ending],
          clock.now(),
        );
        if (!done) throw new Error('no such check at the sandbox');
      },
      unknownRef: (): VendorRef => ({ vendor: 'idv', subject: 'entity-nobody-made', linkedAt: clock.now() }),
      aboutAnotherSubject: (json) => {
        const j = json as { entity?: { entityId?: string } };
        return j.entity ? { ...j, entity: { ...j.entity, entityId: 'entity-of-someone-else' } } : json;
      },
      aboutEarlierAttempt: (json, earlier) => ({
        ...(json as object),
        checkId: earlier.answer.check,
        checkStatus:
          earlier.answer.state === 'pending'
            ? 'CHECKING'
            : earlier.answer.state === 'retryable'
              ? earlier.answer.vendorStatus
              : earlier.answer.result.vendorStatus,
      }),
      withWrongCredentials: () => idvAdapter(c.ctx, { ...idvSettings, apiKey: 'not-the-key' }),
    };
  },
};

const STRIPE_BASE = 'https://stripe.test/sandbox/stripe';
const stripeFetch = async (request: Request) => sandbox.fetch(request, {});

/** The stripe adapter against the Stripe double. */
export const stripeFixtures: AdapterFixtureFactory = {
  name: 'stripe',
  async create(): Promise<AdapterFixture> {
    memoryStore.clear();
    const clock = sharedClock();
    const t = transport(stripeFetch);
    const c = common(clock, t);
    const settings = { base: STRIPE_BASE, secretKey: STRIPE_SANDBOX_KEY, webhookSecret: STRIPE_SANDBOX_WEBHOOK_SECRET };
    const adapter: VendorAdapter = stripeAdapter(c.ctx, settings);
    return {
      ...c,
      adapter,
      linkRequest: () => ({ verificationId: nextId(), returnUrl: 'https://partner.test/back', person }),
      invalidLinkRequest: () => ({ verificationId: nextId(), returnUrl: 'not a url' }),
      settle: async (ref, ending) => {
        const s = await memoryStore.getStripeSession(ref.subject);
        if (!s) throw new Error('no such session at the double');
        const how =
          ending === 'verified'
            ? ({ choice: 'verify' } as const)
            : ({ choice: 'fail', code: ending === 'retryable' ? 'document_expired' : 'consent_declined' } as const);
        await memoryStore.putStripeSession(settled(s, how));
      },
      unknownRef: (): VendorRef => ({ vendor: 'stripe', subject: 'vs_nobodymadethis', linkedAt: clock.now() }),
      aboutAnotherSubject: (json) => ({ ...(json as object), id: 'vs_someoneelses' }),
      // Each attempt is its own session: the earlier one's answer names the earlier session.
      aboutEarlierAttempt: (json, earlier) => ({
        ...(json as object),
        id: earlier.ref.subject,
        status: 'requires_input',
        last_error: { code: 'document_expired' },
      }),
      withWrongCredentials: () => stripeAdapter(c.ctx, { ...settings, secretKey: 'sk_test_bad' }),
      signedEvent: async (subject, { atMs, type, secret }) => {
        const event = await signedStripeEvent(
          type ?? 'identity.verification_session.verified',
          { id: subject, object: 'identity.verification_session' },
          secret ?? STRIPE_SANDBOX_WEBHOOK_SECRET,
          atMs,
        );
        return { headers: new Headers({ 'Stripe-Signature': event.signature }), body: event.body };
      },
    };
  },
};
