/**
 * The adapter conformance suite: the rules every vendor adapter keeps
 * (worker/vendors/adapter.ts, docs/vendors.md), as runner-neutral cases in
 * the manner of workers-oauth-provider's storage conformance suite. It
 * imports no test runner: a runner (node:test here, vitest in workerd) maps
 * each case to a test. A third vendor passes it against its own double by
 * writing one `AdapterFixtureFactory`.
 */
import {
  CapabilityUnavailableError,
  REASONS,
  VendorMismatchError,
  type Capability,
  type LinkRequest,
  type VendorAdapter,
  type VendorAnswer,
  type VendorRef,
} from '../../worker/vendors/adapter';
import { vendorApiError, VendorError } from '../../worker/vendors/errors';

/** Mutable deterministic clock shared by the adapter and its double. */
export interface ConformanceClock {
  now(): number;
  advance(ms: number): void;
}

/** How the fixture's transport misbehaves for the next requests (until set back to undefined). */
export type TransportFault = 'timeout' | 'refused' | 'bad-answer' | 'server-error';

/** How a fixture's double ends an attempt. */
export type Ending = 'verified' | 'retryable' | 'final-failed';

/** One adapter against its double, with hooks into both. */
export interface AdapterFixture {
  readonly adapter: VendorAdapter;
  readonly clock: ConformanceClock;
  /** The `linkMaxMs` the adapter was built with. */
  readonly linkMaxMs: number;
  /** A request the double accepts. */
  linkRequest(): LinkRequest;
  /** A request the double refuses because of `returnUrl` (a 400/422 naming it). */
  invalidLinkRequest(): LinkRequest;
  /** The double ends `ref`'s attempt, as a person finishing the hosted flow would. */
  settle(ref: VendorRef, ending: Ending): Promise<void>;
  /** A reference to a subject the double never issued. */
  unknownRef(): VendorRef;
  /** Requests that left the adapter (through the fixture's transport). */
  ioCount(): number;
  /** From now on the transport misbehaves so (undefined: behaves). */
  fault(mode: TransportFault | undefined): void;
  /** From now on the double's successful JSON answers go through `rewrite` (undefined: untouched). */
  tamper(rewrite: ((json: unknown) => unknown) | undefined): void;
  /** Rewrites an answer so it is about another subject than asked. */
  aboutAnotherSubject(json: unknown): unknown;
  /** Rewrites an answer so it reports an earlier attempt's ending (the vendor's newest check is still the old one). */
  aboutEarlierAttempt(json: unknown, earlier: { ref: VendorRef; answer: VendorAnswer }): unknown;
  /** The same adapter with credentials the double refuses. */
  withWrongCredentials(): VendorAdapter;
  /** For an adapter with `vendorWebhooks`: an event about `subject` signed as the vendor signs, at `atMs`. */
  signedEvent?(subject: string, options: { atMs: number; type?: string; secret?: string }): Promise<{ headers: Headers; body: string }>;
  dispose?(): void | Promise<void>;
}

export interface AdapterFixtureFactory {
  readonly name: string;
  create(): Promise<AdapterFixture>;
}

export type ConformanceResult = { readonly status: 'passed' } | { readonly status: 'skipped'; readonly reason: string };

export interface ConformanceCase {
  readonly name: string;
  run(): Promise<ConformanceResult>;
}

/** The optional methods and the capability each stands for. */
const OPTIONAL: [keyof VendorAdapter, Capability][] = [
  ['sendLink', 'sms'],
  ['search', 'entitySearch'],
  ['cancel', 'cancelAtVendor'],
  ['redact', 'redactAtVendor'],
  ['verifyWebhook', 'vendorWebhooks'],
  ['person', 'person'],
];

export function adapterConformanceCases(factory: AdapterFixtureFactory): readonly ConformanceCase[] {
  const withFixture = (name: string, body: (f: AdapterFixture) => Promise<unknown>): ConformanceCase =>
    Object.freeze({
      name,
      async run(): Promise<ConformanceResult> {
        const f = await factory.create();
        try {
          const result = await body(f);
          return isSkip(result) ? result : { status: 'passed' };
        } finally {
          await f.dispose?.();
        }
      },
    });

  return Object.freeze([
    withFixture('a link is an https URL with an expiry within the cap and a reference that survives JSON', async (f) => {
      const now = f.clock.now();
      const link = await f.adapter.createLink(f.linkRequest());
      ok(typeof link.url === 'string' && new URL(link.url).protocol === 'https:', `url is https: ${String(link.url)}`);
      ok(link.expiresAt > now && link.expiresAt <= now + f.linkMaxMs, `expiry ${link.expiresAt - now} ms ahead, cap ${f.linkMaxMs}`);
      equal(JSON.parse(JSON.stringify(link.ref)), link.ref);
      equal(link.ref.vendor, f.adapter.id);
      equal(link.smsSent, false);
    }),

    withFixture('a fresh link and an unknown result are pending', async (f) => {
      const link = await f.adapter.createLink(f.linkRequest());
      equal((await f.adapter.latestResult(link.ref)).state, 'pending');
      equal((await f.adapter.latestResult(f.unknownRef())).state, 'pending');
    }),

    withFixture('verified is stable across polls', async (f) => {
      const link = await f.adapter.createLink(f.linkRequest());
      await f.settle(link.ref, 'verified');
      const first = await f.adapter.latestResult(link.ref);
      ok(first.state === 'final' && first.result.outcome === 'verified', `verified: ${JSON.stringify(first)}`);
      equal(first.state === 'final' ? first.result.vendor : undefined, f.adapter.id);
      for (let i = 0; i < 3; i++) {
        f.clock.advance(30_000);
        equal(await f.adapter.latestResult(link.ref), first);
      }
    }),

    withFixture('retryable and final failures are told apart', async (f) => {
      const a = await f.adapter.createLink(f.linkRequest());
      await f.settle(a.ref, 'retryable');
      const retry = await f.adapter.latestResult(a.ref);
      ok(retry.state === 'retryable', `retryable: ${JSON.stringify(retry)}`);
      ok(retry.state === 'retryable' && (REASONS as readonly string[]).includes(retry.reason), 'a reason of ours');
      const b = await f.adapter.createLink(f.linkRequest());
      await f.settle(b.ref, 'final-failed');
      const failed = await f.adapter.latestResult(b.ref);
      ok(failed.state === 'final' && failed.result.outcome === 'failed', `failed: ${JSON.stringify(failed)}`);
      ok(failed.state === 'final' && failed.result.vendorStatus.length > 0, 'the vendor word is kept');
    }),

    withFixture("a next attempt never credits the previous attempt's answer", async (f) => {
      const first = await f.adapter.createLink(f.linkRequest());
      await f.settle(first.ref, 'retryable');
      const ended = await f.adapter.latestResult(first.ref);
      equal(ended.state, 'retryable');
      const request = f.linkRequest();
      const next = await f.adapter.createLink(f.adapter.capabilities.entityReuse ? { ...request, subject: first.ref.subject } : request);
      const priorChecks = ended.check !== undefined ? [ended.check] : [];
      // As it is: the new attempt has no answer yet.
      equal((await f.adapter.latestResult(next.ref, { priorChecks })).state, 'pending');
      // The vendor still reports the earlier attempt's ending as the newest: not this attempt's.
      f.tamper((json) => f.aboutEarlierAttempt(json, { ref: first.ref, answer: ended }));
      let answer: VendorAnswer | undefined;
      try {
        answer = await f.adapter.latestResult(next.ref, { priorChecks });
      } catch (err) {
        if (!(err instanceof VendorMismatchError)) throw err;
      }
      f.tamper(undefined);
      ok(answer === undefined || answer.state === 'pending', `not credited: ${JSON.stringify(answer)}`);
    }),

    withFixture('an answer about another subject is a mismatch', async (f) => {
      const link = await f.adapter.createLink(f.linkRequest());
      await f.settle(link.ref, 'verified');
      f.tamper((json) => f.aboutAnotherSubject(json));
      await rejects(
        () => f.adapter.latestResult(link.ref),
        (err) => err instanceof VendorMismatchError,
      );
    }),

    withFixture('an unsupported capability throws before any I/O', async (f) => {
      const a = f.adapter;
      for (const [method, capability] of OPTIONAL) {
        const fn = (a[method] as ((...args: unknown[]) => Promise<unknown>) | undefined)?.bind(a);
        if (a.capabilities[capability]) {
          ok(typeof fn === 'function', `${capability} is offered, so ${method} exists`);
          continue;
        }
        if (!fn) continue;
        const before = f.ioCount();
        await rejects(
          () => fn(f.linkRequest(), {}),
          (err) => err instanceof CapabilityUnavailableError && err.capability === capability,
        );
        equal(f.ioCount(), before);
      }
      if (!a.capabilities.entityReuse) {
        const before = f.ioCount();
        await rejects(
          () => a.createLink({ ...f.linkRequest(), subject: f.unknownRef().subject }),
          (err) => err instanceof CapabilityUnavailableError && err.capability === 'entityReuse',
        );
        equal(f.ioCount(), before);
      }
    }),

    withFixture('webhook signatures: valid, tampered, replayed, unknown', async (f) => {
      const verify = f.adapter.verifyWebhook?.bind(f.adapter);
      if (!f.adapter.capabilities.vendorWebhooks || !verify || !f.signedEvent) return skip('the vendor sends no webhooks');
      const link = await f.adapter.createLink(f.linkRequest());
      const now = f.clock.now();
      const valid = await f.signedEvent(link.ref.subject, { atMs: now });
      const event = await verify(valid.headers, valid.body);
      equal(event?.subject, link.ref.subject);
      equal(await verify(valid.headers, valid.body.replace(link.ref.subject, f.unknownRef().subject)), undefined);
      const replayed = await f.signedEvent(link.ref.subject, { atMs: now - 10 * 60_000 });
      equal(await verify(replayed.headers, replayed.body), undefined);
      // The same delivery, kept and sent again after the tolerance.
      f.clock.advance(10 * 60_000);
      equal(await verify(valid.headers, valid.body), undefined);
      const foreign = await f.signedEvent(link.ref.subject, { atMs: f.clock.now(), secret: 'whsec_someone_elses_secret' });
      equal(await verify(foreign.headers, foreign.body), undefined);
      equal(await verify(new Headers(), valid.body), undefined);
      const unknownType = await f.signedEvent(link.ref.subject, { atMs: f.clock.now(), type: 'account.updated' });
      equal((await verify(unknownType.headers, unknownType.body))?.subject, undefined);
    }),

    withFixture('openUrl: each open asks the vendor for the URL, which no reference keeps; none once the attempt ended', async (f) => {
      const open = f.adapter.openUrl?.bind(f.adapter);
      if (!open) return skip('the link is the URL (no openUrl)');
      const link = await f.adapter.createLink(f.linkRequest());
      // Not stored: what the product keeps about the link holds no URL.
      const kept = JSON.stringify(link.ref);
      ok(!/https?:\/\//.test(kept) && (link.url === undefined || !kept.includes(link.url)), `the reference keeps no URL: ${kept}`);
      for (let i = 0; i < 2; i++) {
        const before = f.ioCount();
        const url = await open(link.ref);
        ok(typeof url === 'string' && new URL(url).protocol === 'https:', `an https URL when opened: ${String(url)}`);
        equal(f.ioCount() - before, 1);
      }
      f.tamper((json) => f.aboutAnotherSubject(json));
      await rejects(
        () => open(link.ref),
        (err) => err instanceof VendorMismatchError,
      );
      f.tamper(undefined);
      await f.settle(link.ref, 'verified');
      equal(await open(link.ref), undefined);
    }),

    withFixture('cancel stops the attempt at the vendor; an answer about another subject is a mismatch', async (f) => {
      const cancel = f.adapter.capabilities.cancelAtVendor ? f.adapter.cancel?.bind(f.adapter) : undefined;
      if (!cancel) return skip('the vendor cannot cancel');
      const other = await f.adapter.createLink(f.linkRequest());
      f.tamper((json) => f.aboutAnotherSubject(json));
      await rejects(
        () => cancel(other.ref),
        (err) => err instanceof VendorMismatchError,
      );
      f.tamper(undefined);
      const link = await f.adapter.createLink(f.linkRequest());
      const before = f.ioCount();
      await cancel(link.ref);
      ok(f.ioCount() > before, 'the vendor was asked');
      if (f.adapter.openUrl) equal(await f.adapter.openUrl(link.ref), undefined);
      const after = await f.adapter.latestResult(link.ref);
      ok(!(after.state === 'final' && after.result.outcome === 'verified'), `never verified once canceled: ${JSON.stringify(after)}`);
    }),

    withFixture('redact erases at the vendor, twice as once; an answer about another subject is a mismatch', async (f) => {
      const redact = f.adapter.capabilities.redactAtVendor ? f.adapter.redact?.bind(f.adapter) : undefined;
      if (!redact) return skip('the vendor cannot redact');
      const link = await f.adapter.createLink(f.linkRequest());
      await f.settle(link.ref, 'verified');
      f.tamper((json) => f.aboutAnotherSubject(json));
      await rejects(
        () => redact(link.ref),
        (err) => err instanceof VendorMismatchError,
      );
      f.tamper(undefined);
      const before = f.ioCount();
      await redact(link.ref);
      ok(f.ioCount() > before, 'the vendor was asked');
      await redact(link.ref); // asked again (a redaction the vendor had not finished): no error
      const open = await f.adapter.createLink(f.linkRequest());
      await redact(open.ref);
      if (f.adapter.openUrl) equal(await f.adapter.openUrl(open.ref), undefined);
    }),

    withFixture('timeout, refused, bad answer, 401 and 422 map to our errors', async (f) => {
      const errorOf = async (run: () => Promise<unknown>) => {
        try {
          await run();
        } catch (err) {
          ok(err instanceof VendorError, `a VendorError: ${String(err)}`);
          const api = vendorApiError(err, 'link');
          return { status: api.status, code: api.errorCode, fields: api.issues.map((i) => i.issueLocation) };
        }
        throw new Error('expected the call to fail');
      };
      const cases: [TransportFault, number, string][] = [
        ['timeout', 504, 'VENDOR_TIMEOUT'],
        ['refused', 502, 'VENDOR_ERROR'],
        ['bad-answer', 502, 'VENDOR_ERROR'],
        ['server-error', 502, 'VENDOR_ERROR'],
      ];
      for (const [mode, status, code] of cases) {
        f.fault(mode);
        const got = await errorOf(() => f.adapter.createLink(f.linkRequest()));
        equal([mode, got.status, got.code], [mode, status, code]);
        const polled = await errorOf(() => f.adapter.latestResult(f.unknownRef()));
        equal([mode, polled.status, polled.code], [mode, status, code]);
      }
      f.fault(undefined);
      const rejected = await errorOf(() => f.withWrongCredentials().createLink(f.linkRequest()));
      equal([rejected.status, rejected.code], [502, 'VENDOR_REJECTED']);
      const refused = await errorOf(() => f.adapter.createLink(f.invalidLinkRequest()));
      equal(refused, { status: 400, code: 'VALIDATION_FAILED', fields: ['returnUrl'] });
    }),

    withFixture('createLink is never retried', async (f) => {
      for (const mode of ['server-error', 'refused', 'timeout', 'bad-answer'] as const) {
        f.fault(mode);
        const before = f.ioCount();
        await rejects(
          () => f.adapter.createLink(f.linkRequest()),
          (err) => err instanceof VendorError,
        );
        equal([mode, f.ioCount() - before], [mode, 1]);
      }
    }),

    withFixture('livemode is false on the double', async (f) => {
      equal(f.adapter.livemode, false);
    }),
  ]);
}

function ok(value: boolean, message: string): void {
  if (!value) throw new Error(`Conformance assertion failed: ${message}`);
}

function equal(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`Conformance assertion failed: ${JSON.stringify(actual)} !== ${JSON.stringify(expected)}`);
  }
}

async function rejects(action: () => Promise<unknown>, predicate: (error: unknown) => boolean): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (predicate(error)) return;
    throw error;
  }
  throw new Error('Conformance assertion failed: expected the operation to reject');
}

const isSkip = (r: unknown): r is ConformanceResult =>
  typeof r === 'object' && r !== null && (r as { status?: unknown }).status === 'skipped';

function skip(reason: string): ConformanceResult {
  return { status: 'skipped', reason };
}
