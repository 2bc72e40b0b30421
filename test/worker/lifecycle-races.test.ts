/**
 * A verification's lifecycle under concurrency, run through the worker's own
 * VerificationLogic (the code the Durable Object runs) over a store that
 * copies records as Durable Object storage does, a vendor whose answers the
 * test releases, and a clock the test moves.
 *
 * First the reproductions, each a named case: a cancel, a redaction, a
 * renewal, a wrong code and an opened handoff made while a poll (after one
 * failed poll) waited on the vendor; a result without an entity; a vendor
 * outage across the deadline, then its recovery. Then fast-check's
 * scheduler explores the interleavings of polls, alarms and the partner's
 * and the person's actions, checking the lifecycle's invariants after every
 * run.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import fc from 'fast-check';
import { type Renewal, type Verification, type WebhookEvent } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { VerificationLogic, type VerificationDeps } from '../../worker/verifications/verification-logic';
import { lifecycle } from '../../worker/verifications/lifecycle';
import { writeChange, type KeptOutbox } from '../../worker/verifications/record-write';
import { attemptFor, handOff, nextDueAt, reported, type AttemptReport } from '../../worker/verifications/webhook-outbox';
import { realNow } from '../support/dates';
import { renewWithTurn } from '../support/renew-with-turn';
import { flat } from '../support/state-view';

const MIN = 60_000;
const ENTITY = 'entity-own';
const TERMINAL = new Set(['verification.completed', 'verification.expired', 'verification.canceled']);

interface Answer {
  checkStatus: string;
  entityId?: string;
}
type Vendor = (v: Verification) => Promise<Answer>;

/** The logic over a copying store, a controlled clock and `vendor`; every saved record kept in order. */
function harness(record: Verification, vendor: Vendor, extra: Partial<VerificationDeps> = {}) {
  const state = {
    v: structuredClone(record) as Verification | undefined,
    now: record.createdAt,
    alarm: undefined as number | undefined,
    events: [] as WebhookEvent[],
    saved: [structuredClone(record)] as Verification[],
    asked: 0,
  };
  const logic = new VerificationLogic({
    load: async () => (state.v ? structuredClone(state.v) : undefined),
    save: async (v, events) => {
      state.v = structuredClone(v);
      state.saved.push(structuredClone(v));
      state.events.push(...events);
    },
    remove: async () => void (state.v = undefined),
    setAlarm: async (at) => void (state.alarm = at),
    now: () => state.now,
    schedule: { pollMs: 30_000, maxMs: 900_000 },
    askVendor: (v) => {
      state.asked++;
      return vendor(v);
    },
    release: async () => undefined,
    ...extra,
  });
  /** Runs the alarms due up to `until`, as the Durable Object would. */
  const runUntil = async (until: number) => {
    for (let guard = 0; state.alarm !== undefined && state.alarm <= until && state.v; guard++) {
      if (guard > 10_000) throw new Error('the alarm spins');
      state.now = Math.max(state.now, state.alarm);
      state.alarm = undefined;
      await logic.alarm();
    }
    state.now = until;
  };
  return { state, logic, runUntil };
}

/** An open verification one poll into a failing vendor, with a QR handoff whose phone came back (waiting for its code). */
function openRecord(now: number, handoff = false): Verification {
  return {
    id: 'vrf_01JDRACE000000000000000000',
    partnerId: 'alpha',
    partnerOrigin: 'https://alpha.example',
    customerRef: 'acct-secret-ref',
    customerRefSource: 'server',
    entityId: ENTITY,
    workerOrigin: 'https://kyc.example',
    livemode: false,
    createdAt: now,
    linkCreatedAt: now,
    linkExpiresAt: now + 60 * MIN,
    deadline: now + 75 * MIN,
    state: { name: 'open' },
    polls: 1,
    lastPolledAt: now - 10 * MIN,
    failedPolls: 1,
    webhook: { state: 'none', attempts: 0 },
    holds: ['ip:client-hash', 'partner:alpha'],
    server: { returnUrl: 'https://alpha.example/account/acct-secret-ref' },
    ...(handoff
      ? {
          handoff: {
            kind: 'link' as const,
            openToken: 'open-token-1',
            hostedUrl: 'https://vendor.example/flow/1',
            returnSecret: 'return-secret-1',
            browserKey: 'browser-key-1',
            code: '123456',
            tries: 0,
          },
        }
      : {}),
  };
}

/** Runs `fn` with console.error silenced (a failing vendor logs `poll_failed` on each alarm); the lines it would have logged. */
async function quietly(fn: () => Promise<void>): Promise<string[]> {
  const logged = mock.method(console, 'error', () => undefined);
  try {
    await fn();
    return logged.mock.calls.map((c) => String(c.arguments[0]));
  } finally {
    logged.mock.restore();
  }
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A vendor the test answers by hand, one call at a time. */
function heldVendor() {
  const calls: { resolve: (a: Answer) => void; reject: (e: unknown) => void }[] = [];
  const started = deferred<true>();
  const vendor: Vendor = () => {
    const d = deferred<Answer>();
    calls.push(d);
    started.resolve(true);
    return d.promise;
  };
  return { vendor, calls, started: started.promise };
}

const terminalEvents = (events: WebhookEvent[]) => events.filter((e) => TERMINAL.has(e.type));

describe('a write made while the vendor is asked is never undone', () => {
  it('a cancel during a poll (after one failed poll) stays canceled, with one verification.canceled', async () => {
    const held = heldVendor();
    const { state, logic } = harness(openRecord(realNow()), held.vendor);
    const poll = logic.execute({ type: 'observe' });
    await held.started;
    await logic.execute({ type: 'cancel' });
    held.calls[0]!.resolve({ checkStatus: CHECKING, entityId: ENTITY });
    await poll;
    assert.notEqual(flat(state.v!).canceledAt, undefined, 'still canceled after the answer');
    assert.deepEqual(
      terminalEvents(state.events).map((e) => e.type),
      ['verification.canceled'],
    );
    // Later answers change nothing: no final status, no token.
    await logic.execute({ type: 'observe', hint: { params: { checkId: 'chk-later' } } });
    assert.equal(flat(state.v!).status, CHECKING);
    assert.equal(flat(state.v!).finalAt, undefined);
  });

  it('a redaction during a poll (after one failed poll) stays redacted: the reference and the entity never come back', async () => {
    const held = heldVendor();
    const { state, logic } = harness(openRecord(realNow()), held.vendor);
    const poll = logic.execute({ type: 'observe' });
    await held.started;
    await logic.execute({ type: 'redact' });
    held.calls[0]!.resolve({ checkStatus: CHECKING, entityId: ENTITY });
    await poll;
    assert.notEqual(state.v!.redactedAt, undefined);
    assert.doesNotMatch(JSON.stringify(state.v), /acct-secret-ref|entity-own|client-hash/);
    assert.equal(state.v!.holds, undefined, "the holds name the person's client address");
    assert.equal(state.v!.server?.returnUrl, undefined, "the server's return URL can name the account");
    assert.notEqual(flat(state.v!).canceledAt, undefined, 'an open verification is canceled by its redaction');
  });

  it('a renewal during a poll (after one failed poll) is kept: the new link goes on working', async () => {
    const held = heldVendor();
    const start = realNow();
    const { state, logic } = harness(openRecord(start), held.vendor);
    const poll = logic.execute({ type: 'observe' });
    await held.started;
    const later = start + 70 * MIN;
    // Both shapes of a renewal: the vendor's urlExpiry, and the times the old logic took from its caller.
    const renewal: Renewal & Record<string, unknown> = {
      urlExpiry: new Date(later).toISOString(),
      linkExpiresAt: later,
      deadline: later + 15 * MIN,
    };
    assert.ok(await renewWithTurn(logic, renewal));
    held.calls[0]!.resolve({ checkStatus: CHECKING, entityId: ENTITY });
    await poll;
    assert.equal(state.v!.renewals, 1);
    assert.equal(state.v!.linkExpiresAt, later);
  });

  it('a wrong code during a poll (after one failed poll) still counts: tries never go back', async () => {
    const held = heldVendor();
    const { state, logic } = harness(openRecord(realNow(), true), held.vendor);
    const poll = logic.execute({ type: 'observe', arrived: true });
    await held.started;
    assert.equal((await logic.execute({ type: 'claim', browserKey: 'browser-key-1', code: '000000' })).kind, 'wrong');
    held.calls[0]!.resolve({ checkStatus: CHECKING, entityId: ENTITY });
    await poll;
    assert.equal(state.v!.handoff!.tries, 1);
  });

  it('a handoff link opened during a poll (after one failed poll) stays used', async () => {
    const held = heldVendor();
    const { state, logic } = harness(openRecord(realNow(), true), held.vendor);
    const poll = logic.execute({ type: 'observe', arrived: true });
    await held.started;
    assert.equal(await logic.execute({ type: 'handoff.open', token: 'open-token-1', consume: true }), 'https://vendor.example/flow/1');
    held.calls[0]!.resolve({ checkStatus: CHECKING, entityId: ENTITY });
    await poll;
    assert.equal(state.v!.handoff?.kind === 'link' && state.v!.handoff.opened, true);
    assert.equal(
      await logic.execute({ type: 'handoff.open', token: 'open-token-1', consume: true }),
      undefined,
      'a second open is refused',
    );
  });
});

describe('the entity check', () => {
  it('a result without an entity is not credited: vendor_mismatch at error level, no final status', async () => {
    const logged = mock.method(console, 'error', () => undefined);
    try {
      const { state, logic } = harness(openRecord(realNow()), async () => ({ checkStatus: 'CHECKED_SUCCESS_CLEAR' }));
      await assert.rejects(logic.execute({ type: 'observe', hint: { params: { checkId: 'someone-elses-check' } } }));
      assert.equal(flat(state.v!).status, CHECKING);
      assert.equal(flat(state.v!).finalAt, undefined);
      assert.deepEqual(terminalEvents(state.events), []);
      const lines = logged.mock.calls.map((c) => String(c.arguments[0]));
      assert.ok(
        lines.some((l) => /"level":"error"/.test(l) && /"event":"vendor_mismatch"/.test(l)),
        lines.join('\n'),
      );
    } finally {
      logged.mock.restore();
    }
  });

  it("a result about another entity is not credited, and the browser's check id is never sent to the vendor", async () => {
    const asked: Verification[] = [];
    const { state, logic } = harness(openRecord(realNow()), async (v) => {
      asked.push(v);
      return { checkStatus: 'CHECKED_SUCCESS_CLEAR', entityId: 'entity-of-someone-else' };
    });
    const logged = mock.method(console, 'error', () => undefined);
    try {
      await assert.rejects(logic.execute({ type: 'observe', hint: { params: { checkId: 'someone-elses-check' } } }));
    } finally {
      logged.mock.restore();
    }
    assert.equal(flat(state.v!).status, CHECKING);
    assert.equal(asked[0]!.entityId, ENTITY);
  });
});

describe('expiry knows whether the vendor answered', () => {
  it('a vendor outage across the deadline, then its recovery, ends final with the vendor’s status', async () => {
    let down = true;
    const { state, logic, runUntil } = harness(openRecord(realNow()), async () => {
      if (down) throw new Error('vendor 503');
      return { checkStatus: 'CHECKED_SUCCESS_CLEAR', entityId: ENTITY };
    });
    const start = state.now;
    await quietly(async () => {
      await logic.alarm();
      await runUntil(state.v!.deadline + 30 * MIN);
    });
    assert.equal(flat(state.v!).expiredAt, undefined, 'not expired while the vendor could not answer');
    down = false;
    await runUntil(state.now + 60 * MIN);
    assert.equal(flat(state.v!).status, 'CHECKED_SUCCESS_CLEAR');
    assert.notEqual(flat(state.v!).finalAt, undefined);
    assert.deepEqual(
      terminalEvents(state.events).map((e) => e.type),
      ['verification.completed'],
    );
    assert.ok(flat(state.v!).finalAt! > start);
  });

  it('a vendor that answers "not finished" at the deadline ends it expired (not_finished)', async () => {
    const { state, runUntil } = harness(openRecord(realNow()), async () => ({ checkStatus: CHECKING, entityId: ENTITY }));
    state.alarm = state.now;
    await runUntil(state.v!.deadline + MIN);
    assert.equal(flat(state.v!).expiredReason, 'not_finished');
    assert.ok(state.v!.lastPolledAt! >= state.v!.deadline, 'asked once more at the deadline');
  });

  it('a vendor that never answers again ends it expired (vendor_unavailable) VERIFICATION_MAX_SECONDS after the deadline', async () => {
    const lifecycle = { graceMs: 15 * MIN, linkMaxMs: 86_400_000, afterDeadlineMs: 120 * MIN };
    const { state, runUntil } = harness(
      openRecord(realNow()),
      async () => {
        throw new Error('vendor 503');
      },
      { lifecycle },
    );
    state.alarm = state.now;
    const deadline = state.v!.deadline;
    await quietly(() => runUntil(deadline + 119 * MIN));
    assert.equal(flat(state.v!).expiredAt, undefined);
    await quietly(() => runUntil(deadline + 121 * MIN));
    assert.equal(flat(state.v!).expiredReason, 'vendor_unavailable');
    assert.equal(terminalEvents(state.events).length, 1);
  });
});

// ---- interleavings ----

type Op = 'alarm' | 'observe' | 'hint' | 'cancel' | 'redact' | 'renew' | 'wrongCode' | 'rightCode' | 'open' | 'tick';
const OPS: Op[] = ['alarm', 'observe', 'hint', 'cancel', 'redact', 'renew', 'wrongCode', 'rightCode', 'open', 'tick'];
type Reply = 'CHECKING' | 'CHECKED_SUCCESS_CLEAR' | 'NO_MATCH' | 'fail' | 'noEntity' | 'otherEntity';
const REPLIES: Reply[] = ['CHECKING', 'CHECKED_SUCCESS_CLEAR', 'NO_MATCH', 'fail', 'noEntity', 'otherEntity'];

function answerOf(r: Reply): Answer {
  if (r === 'noEntity') return { checkStatus: 'CHECKED_SUCCESS_CLEAR' };
  if (r === 'otherEntity') return { checkStatus: 'CHECKED_SUCCESS_CLEAR', entityId: 'entity-other' };
  return { checkStatus: r, entityId: ENTITY };
}

const ended = (v: Verification) => flat(v).status !== CHECKING || flat(v).expiredAt !== undefined || flat(v).canceledAt !== undefined;

/** The invariants over every record saved in order, and the events enqueued. */
function checkInvariants(saved: Verification[], events: WebhookEvent[]) {
  for (let i = 1; i < saved.length; i++) {
    const a = saved[i - 1]!;
    const b = saved[i]!;
    const step = `save ${i}`;
    if (ended(a)) {
      assert.ok(ended(b), `${step}: an ended verification became open again`);
      assert.equal(flat(b).status, flat(a).status, `${step}: an ended verification's status changed`);
    }
    if (a.redactedAt !== undefined) {
      for (const field of ['customerRef', 'entityId', 'handoff', 'holds', 'link', 'returnParams'] as const) {
        assert.equal(b[field], undefined, `${step}: ${field} came back after the redaction`);
      }
      assert.equal(b.server?.returnUrl, undefined, `${step}: the return URL came back after the redaction`);
    }
    assert.ok((b.handoff?.tries ?? 0) >= (a.handoff?.tries ?? 0) || b.handoff === undefined, `${step}: tries went down`);
    if (a.handoff?.kind === 'link' && a.handoff.opened && b.handoff?.kind === 'link' && b.handoff.openToken === a.handoff.openToken) {
      assert.equal(b.handoff.opened, true, `${step}: a used handoff link became usable again`);
    }
    assert.ok((b.renewals ?? 0) >= (a.renewals ?? 0), `${step}: a renewal was undone`);
    assert.ok(b.linkExpiresAt >= a.linkExpiresAt, `${step}: the link expiry went back`);
    assert.ok((b.attempts?.length ?? 0) >= (a.attempts?.length ?? 0), `${step}: an attempt was forgotten`);
    if (flat(a).status !== CHECKING) assert.equal(flat(b).status, flat(a).status);
  }
  const last = saved.at(-1)!;
  const terminal = terminalEvents(events);
  assert.equal(terminal.length, ended(last) ? 1 : 0, `terminal events: ${terminal.map((e) => e.type).join(', ')}`);
  if (flat(last).status !== CHECKING) assert.equal(terminal[0]!.type, 'verification.completed');
  // A result never credited without this verification's own entity.
  if (flat(last).status !== CHECKING) assert.ok(flat(last).finalAt !== undefined);
  // Event ids are unique per event (a redelivery sends the same id, but these are first sends).
  assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'an event enqueued twice');
  // `sequence`, where events carry one, only grows.
  const sequences = events
    .map((e) => (JSON.parse(e.body) as { data?: { sequence?: number } }).data?.sequence)
    .filter((s): s is number => s !== undefined);
  for (let i = 1; i < sequences.length; i++) assert.ok(sequences[i]! > sequences[i - 1]!, 'sequence went back');
}

/** The partner's, the person's and the clock's actions on the logic. */
let hints = 0;
function runBasic(op: Op, logic: VerificationLogic, state: { now: number }): Promise<unknown> {
  const reply = ++hints; // a check id the browser has not brought before
  switch (op) {
    case 'alarm':
      return logic.alarm();
    case 'observe':
      return logic.execute({ type: 'observe' });
    case 'hint':
      return logic.execute({ type: 'observe', hint: { params: { checkId: `chk-${reply}` }, returned: 'success' } });
    case 'cancel':
      return logic.execute({ type: 'cancel' });
    case 'redact':
      return logic.execute({ type: 'redact' });
    case 'renew': {
      const at = state.now + 60 * MIN;
      return renewWithTurn(logic, { urlExpiry: new Date(at).toISOString() });
    }
    case 'wrongCode':
      return logic.execute({ type: 'claim', browserKey: 'browser-key-1', code: '000000' });
    case 'rightCode':
      return logic.execute({ type: 'claim', browserKey: 'browser-key-1', code: '123456' });
    case 'open':
      return logic.execute({ type: 'handoff.open', token: 'open-token-1', consume: true });
    case 'tick':
      state.now += 10 * MIN;
      return Promise.resolve();
  }
}

describe('interleavings (fast-check scheduler)', () => {
  it('keeps every invariant whatever the order of polls, alarms, cancels, redactions, renewals, codes and opens', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom(...OPS), { minLength: 2, maxLength: 8 }),
        fc.array(fc.constantFrom(...REPLIES), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.boolean(),
        async (s, ops, replies, handoff, nearDeadline) => {
          const start = realNow();
          const record = openRecord(start, handoff);
          let reply = 0;
          const mismatch = mock.method(console, 'error', () => undefined);
          try {
            const { state, logic } = harness(record, (v) => {
              assert.equal(v.entityId, ENTITY, 'the vendor is only ever asked about the own entity');
              const r = replies[reply++ % replies.length]!;
              return s.schedule(r === 'fail' ? Promise.reject(new Error('vendor 503')) : Promise.resolve(answerOf(r)), `vendor ${r}`);
            });
            if (nearDeadline) state.now = record.deadline + MIN;
            const run = (op: Op): Promise<unknown> => runBasic(op, logic, state);
            const running = ops.map((op) =>
              s
                .schedule(Promise.resolve(op), `start ${op}`)
                .then(run)
                .catch(() => undefined),
            );
            await s.waitFor(Promise.all(running));
            checkInvariants(state.saved, state.events);
          } finally {
            mismatch.mock.restore();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---- interleavings with the outbox and attempts ----

/**
 * The same logic with its outbox as the Durable Object keeps it: each change
 * written with its events (record-write.ts), the alarm's hand-offs to a
 * queue, a consumer whose attempts are delivered, refused (503,
 * `Retry-After: 0`) or lost to a crash, and a receiver that records what it
 * got. All on the outbox's own rules (webhook-outbox.ts).
 */
function outboxHarness(record: Verification, vendor: Vendor) {
  const { state, logic } = harness(record, vendor, {
    save: async (v, events) => {
      await writeChange({ put: async () => undefined }, kept, v, events, state.now);
      state.v = structuredClone(v);
      state.saved.push(structuredClone(v));
      state.events.push(...events);
    },
  });
  const kept: KeptOutbox = { outbox: [] };
  const queue: { sequence: number; attempt: number }[] = [];
  const received: { id: string; body: string }[] = [];
  const policy = { schedule: [5, 300, 1800], maxAttempts: 40 };
  /** The alarm's turn for the outbox: what is due (new, to retry, or handed off and never reported) goes to the queue. */
  const sendDue = () => {
    const { entries, due } = handOff(kept.outbox, state.now, policy);
    kept.outbox = entries;
    for (const e of due) queue.push({ sequence: e.sequence, attempt: e.attempts + 1 });
  };
  /** The consumer takes the oldest message: `lost` (a crash: never reported), or an attempt the receiver answers. */
  const consume = async (answer: 'ok' | 'fail' | 'lost', receiver: () => Promise<unknown>) => {
    const m = queue.shift();
    if (!m || answer === 'lost') return;
    const entry = attemptFor(kept.outbox, m.sequence, m.attempt);
    if (!entry) return; // no longer owed (already reported, or forgotten)
    await receiver();
    if (answer === 'ok') received.push({ id: entry.event.id, body: entry.event.body });
    const report: AttemptReport =
      answer === 'ok' ? { kind: 'delivered', status: 200 } : { kind: 'failed', status: 503, retryAfterSeconds: 0 };
    const r = reported(kept.outbox, m.sequence, m.attempt, report, state.now, policy);
    if (r) kept.outbox = r.entries;
  };
  /** Time moves on and the alarm hands off and the consumer delivers until nothing is owed (or the guard trips). */
  const drain = async () => {
    for (let guard = 0; kept.outbox.some((e) => e.state === 'queued' || e.state === 'failed'); guard++) {
      if (guard > 200) throw new Error('the outbox never drains');
      sendDue();
      while (queue.length) await consume('ok', async () => undefined);
      state.now = Math.max(state.now, nextDueAt(kept.outbox) ?? state.now);
    }
  };
  return { state, logic, kept, queue, received, sendDue, consume, drain };
}

type OutboxOp = Op | 'nextAttempt' | 'send' | 'ack' | 'fail' | 'lose' | 'later';
const OUTBOX_OPS: OutboxOp[] = [
  'alarm',
  'observe',
  'hint',
  'cancel',
  'redact',
  'nextAttempt',
  'send',
  'ack',
  'fail',
  'lose',
  'later',
  'tick',
];

const dataOf = (body: string) => (JSON.parse(body) as { data: Record<string, unknown> }).data;

describe('interleavings with the outbox and attempts (fast-check scheduler)', () => {
  it('sequence only grows, every end has one terminal event and it is delivered, nothing redacted comes back, nothing ended reopens', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom(...OUTBOX_OPS), { minLength: 3, maxLength: 12 }),
        fc.array(fc.constantFrom<Reply>('CHECKING', 'NO_MATCH', 'CHECKED_SUCCESS_CLEAR', 'fail'), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        async (s, ops, replies, nearDeadline) => {
          const start = realNow();
          const record = { ...openRecord(start), maxAttempts: 3 };
          let reply = 0;
          const quiet = mock.method(console, 'error', () => undefined);
          try {
            const h = outboxHarness(record, () => {
              const r = replies[reply++ % replies.length]!;
              return s.schedule(r === 'fail' ? Promise.reject(new Error('vendor 503')) : Promise.resolve(answerOf(r)), `vendor ${r}`);
            });
            const { state, logic } = h;
            if (nearDeadline) state.now = record.deadline - MIN;
            const run = async (op: OutboxOp): Promise<unknown> => {
              switch (op) {
                case 'nextAttempt': {
                  // /api/onboarding-link in requires_input: read, a new vendor link (slow), then the attempt transition.
                  const v = await logic.execute({ type: 'observe' }).catch(() => state.v);
                  if (!v || flat(v).requiresInputAt === undefined) return undefined;
                  await s.schedule(Promise.resolve(), 'vendor link');
                  return renewWithTurn(logic, { urlExpiry: new Date(state.now + 60 * MIN).toISOString() });
                }
                case 'send':
                  h.sendDue();
                  return undefined;
                case 'ack':
                case 'fail':
                  return h.consume(op === 'ack' ? 'ok' : 'fail', () => s.schedule(Promise.resolve(), `receiver ${op}`));
                case 'lose':
                  return h.consume('lost', async () => undefined);
                case 'later':
                  // Past the ack window: what was handed off and never reported is due again.
                  state.now += 6 * MIN;
                  return undefined;
                default:
                  return runBasic(op, logic, state);
              }
            };
            const running = ops.map((op) =>
              s
                .schedule(Promise.resolve(op), `start ${op}`)
                .then(run)
                .catch(() => undefined),
            );
            await s.waitFor(Promise.all(running));
            checkInvariants(state.saved, state.events);
            const last = state.saved.at(-1)!;
            for (let i = 1; i < state.saved.length; i++) {
              const a = lifecycle(state.saved[i - 1]!);
              const b = lifecycle(state.saved[i]!);
              if (a === 'final' || a === 'expired' || a === 'canceled') assert.equal(b, a, `save ${i}: ${a} became ${b}`);
            }

            // sequence: 1, 2, 3… in the order the changes were written, stamped in each body.
            const outbox = h.kept.outbox;
            assert.deepEqual(
              outbox.map((e) => e.sequence),
              outbox.map((_, i) => i + 1),
            );
            for (const e of outbox) assert.equal(dataOf(e.event.body).sequence, e.sequence);

            // Nothing redacted comes back, in the record or in any kept body.
            if (last.redactedAt !== undefined) {
              for (const e of outbox) assert.doesNotMatch(e.event.body, /acct-secret-ref|entity-own/, `${e.event.type} kept the entity`);
            }

            // Eventually delivered: the alarm and the consumer, left to run, deliver every event; the end's exactly once in the outbox.
            await h.drain();
            const terminal = outbox.filter((e) => TERMINAL.has(e.event.type));
            assert.equal(terminal.length, ended(last) ? 1 : 0);
            for (const e of h.kept.outbox) assert.equal(e.state, 'delivered', `${e.event.type} ended ${e.state}`);
            if (ended(last)) {
              assert.ok(
                h.received.some((r) => r.id === terminal[0]!.event.id),
                'the terminal event reached the receiver',
              );
              // The newest event says how it ended: a receiver keeping the highest sequence holds the end.
              const newest = dataOf(h.kept.outbox.at(-1)!.event.body);
              assert.equal(newest.status, lifecycle(last));
            }
          } finally {
            quiet.mock.restore();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
