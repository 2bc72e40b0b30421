/**
 * Waiting in tests: for a fact, never for a length of time.
 *
 * A test that sleeps a fixed time passes on a quiet machine and fails on a
 * busy one (or waits longer than it needs to on every machine). Instead a
 * test names the fact it waits for (a record written, a log line, a request
 * that arrived at a fake) and `until` looks for it, again and again, until it
 * holds or a bound of real time runs out; the bound only decides when to give
 * up, never whether the test passes. A test that can drive the time itself
 * uses the controlled clock (test/support/node-env.ts, `runDueAlarms`), not
 * this. Use the final fact a test asserts on (the delivery recorded), not an
 * intermediate counter that can move before the fact it stands for.
 *
 * The one place in the suite that pauses for a time is `pause` below: between
 * two looks, and the deadline of `within`.
 */
import assert from 'node:assert/strict';

export interface WaitOptions {
  /** What is waited for, in the failure's message ("the webhook_dead log line"). */
  what: string;
  /** Real time to give up after (default 30 s: a busy machine is slow, never wrong). */
  timeoutMs?: number;
  /** More for the failure's message, e.g. the worker's last log lines. */
  detail?: () => string;
}

/**
 * The single timed pause of the test suite (not `node:timers/promises`, so that
 * `mock.timers` of a test cannot freeze it). `unref`: a pending look never
 * keeps a finished test process alive.
 */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Real elapsed time, immune to tests that mock or move `Date` (clock-ahead, `mock.timers`). */
const now = () => performance.now();

/**
 * Resolves with `look()`'s first value that is not `undefined`, `null` or
 * `false`; fails (an assertion error naming `what`, the last value seen and
 * `detail`) once `timeoutMs` of real time has passed. Looks at once, then
 * again after 10 ms, doubling to at most 200 ms between looks.
 */
export async function until<T>(
  look: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions,
): Promise<T> {
  const { what, timeoutMs = 30_000, detail } = options;
  const end = now() + timeoutMs;
  let gap = 10;
  for (;;) {
    const seen = await look();
    if (seen !== undefined && seen !== null && seen !== false) return seen;
    if (now() > end) {
      const extra = detail?.();
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}${extra ? `\n${extra}` : ''}`);
    }
    await pause(gap);
    gap = Math.min(gap * 2, 200);
  }
}

/** `promise`, or a failure naming `what` if it has not settled within `timeoutMs` of real time. */
export function within<T>(promise: Promise<T>, options: WaitOptions): Promise<T> {
  const { what, timeoutMs = 30_000, detail } = options;
  const late = pause(timeoutMs).then((): never => {
    const extra = detail?.();
    assert.fail(`${what}: not within ${timeoutMs} ms${extra ? `\n${extra}` : ''}`);
  });
  return Promise.race([promise, late]);
}

/**
 * One turn of Node's event loop (`setImmediate`): whatever is already due runs
 * first (other requests of this process going on until each waits for
 * something: a fake's answer, a lock). An order of events, not a length of
 * time: for in-process tests that let concurrent work catch up.
 */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise that never settles: a fake that never answers (the caller's own timeout is under test). */
export const never = (): Promise<never> => new Promise<never>(() => undefined);
