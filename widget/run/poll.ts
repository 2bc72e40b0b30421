/** Asking the worker for the result until it is final: `checking`, and while a link is out. */
import { failure, getResult, isFailure } from '../api.js';
import { sleep, type RunContext } from './context.js';
import { complete, fail, requiresInput } from './outcome.js';
import { renew } from './renew.js';

/** How long after `urlExpiry` a link out in the world (texted, another tab) is still polled: the person may be finishing. */
const GRACE_MS = 10 * 60_000;

/** `checking` answers still open before the wait is called slow (the default intervals: after about 4 seconds). */
const SLOW_AFTER = 3;

/**
 * Ask for the result until it is final. `checking` asks once per
 * `pollIntervals` wait and then gives up (`RESULT_PENDING`); with a link
 * still out (`long`: texted, or open in this tab, a popup or another tab)
 * the last wait repeats until the link has expired (plus a grace period),
 * and a hiccup is not the person's problem.
 */
export async function poll(r: RunContext, session: string, long: boolean): Promise<void> {
  const { flow, host } = r;
  const signal = r.round();
  let expiry = 0;
  let until = 0;
  const bounds = () => {
    expiry = Date.parse(flow.link?.urlExpiry ?? '');
    until = (Number.isNaN(expiry) ? Date.now() + 20 * 60_000 : expiry) + GRACE_MS;
  };
  bounds();
  for (let i = 0; ; i++) {
    try {
      const answer = await getResult(host.endpoint, { session, ...r.returnParams }, signal);
      if (signal.aborted) return;
      if (answer.formKey) r.formKey = answer.formKey;
      if (answer.status === 'requires_input') {
        requiresInput(r, session);
        return;
      }
      if (answer.status === 'final') {
        complete(r, answer);
        return;
      }
      // Still checking after a few answers: say why it takes long, and by when the result should be here.
      if (flow.state === 'checking' && i === SLOW_AFTER && !flow.slowBy) {
        flow.slowBy = Date.now() + host.pollIntervals.slice(i).reduce((a, b) => a + b, 0);
        host.requestUpdate();
      }
      if (answer.phoneOpened && !flow.phoneOpened) {
        flow.phoneOpened = true;
        host.requestUpdate();
      }
      // The phone is done (back from the hosted flow, its code entered): no more waiting for it.
      if (answer.phoneReturned && (flow.state === 'handoff' || flow.state === 'sms-sent')) r.set('checking');
      // The QR code on screen always works: an expired one is replaced
      // without asking (the same verification). A texted link is not: only
      // the person's "Send again" texts again.
      if (flow.state === 'handoff' && Date.now() >= expiry) {
        const renewed = await renew(r, session, signal);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may have changed during the await
        if (signal.aborted) return;
        if (renewed) {
          session = renewed;
          bounds();
        }
      } else if (flow.state === 'handoff' && answer.phoneOpened && !answer.phoneReturned && !r.keepUsedCode) {
        // The phone opened the code on screen and has not finished: that code is used up (single use). If the
        // phone's tab was closed, a re-scan must work: a new code, at once. It never ends the wait (the phone
        // may still finish); when none can be had, the used one stays and "Show a new code" is there.
        try {
          const renewed = await renew(r, session, signal, 'used');
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may have changed during the await
          if (signal.aborted) return;
          if (renewed) {
            session = renewed;
            bounds();
          }
        } catch {
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may have changed during the await
          if (signal.aborted) return;
          r.keepUsedCode = true;
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      // Unless the session itself is gone (or can get no new link), keep asking while the link is out.
      if (!long || (isFailure(e) && (e.status === 401 || e.status === 409))) {
        fail(r, e, 'result');
        return;
      }
    }
    const waits = host.pollIntervals; // read each time: a change applies to the next wait
    const wait = long ? waits[Math.min(i, waits.length - 1)] : waits[i];
    if (wait === undefined || (long && Date.now() > until)) {
      if (!long) fail(r, failure('RESULT_PENDING', 0, true), 'result');
      return;
    }
    await sleep(wait, signal);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may have changed during the await
    if (signal.aborted) return;
  }
}

/** `checking` with this tab's session: ask until final, or until the polling bound (no session: `NO_SESSION`). */
export async function check(r: RunContext): Promise<void> {
  const stored = r.d.readStored();
  if (!stored) {
    fail(r, failure('NO_SESSION', 0, false), 'result');
    return;
  }
  r.flow.failure = undefined;
  r.set('checking');
  return poll(r, stored.session, false);
}
