/**
 * The buttons of the run's views: "Use this device instead" and "Change my
 * number" (the link out on a phone is voided first), "Send again", (after
 * `SMS_NOT_ALLOWED`) "Continue on this device", "Start again", (back from
 * the hosted flow) "Continue the check" and (the QR code) "Show a new code".
 */
import { failure, getResult, isFailure, withdrawLink } from '../api.js';
import type { RunContext } from './context.js';
import { backToForm, fail, refill } from './outcome.js';
import { hasKeptForm } from './kept-form.js';
import { check, poll } from './poll.js';
import { renew } from './renew.js';
import { continueCheck } from './resume.js';

export interface RunActions {
  useThisDevice: () => void;
  changeNumber: () => void;
  sendAgain: () => void;
  continueHere: () => void;
  startAgain: () => void;
  continueCheck: () => void;
  showNewCode: () => void;
}

/**
 * "Show a new code": the QR code and link on screen replaced by new ones of the same verification (the old one
 * no longer opens), then the waiting goes on. A session that has ended says so; any other refusal keeps the code on
 * screen, and the status line says why.
 */
async function showNewCode(r: RunContext): Promise<void> {
  const stored = r.d.readStored();
  if (!stored) return;
  const signal = r.round(); // the polling pauses while the new code is made
  let session = stored.session;
  try {
    session = (await renew(r, session, signal, 'asked')) ?? session;
  } catch (e) {
    if (signal.aborted) return;
    if (isFailure(e) && (e.status === 401 || e.status === 409)) {
      fail(r, e, 'result');
      return;
    }
    r.flow.newCode = undefined;
    r.flow.newCodeFault = isFailure(e) ? e : failure('UNKNOWN', 0, false);
    r.host.requestUpdate();
  }
  if (signal.aborted) return;
  void poll(r, session, true);
}

/**
 * "Start again", "Change my details": the form, with every value as the person left it; after the trip to the
 * hosted flow (the page loaded afresh) with the values this tab kept, opened with the worker's key (asked for once
 * with the session when no result answer brought it yet). Any failure leaves the form as it is.
 */
async function startAgain(r: RunContext): Promise<void> {
  const stored = r.d.readStored();
  let key = r.formKey;
  backToForm(r);
  void r.flow.focus('input');
  if (!key && stored && hasKeptForm()) {
    try {
      key = (await getResult(r.host.endpoint, { session: stored.session })).formKey;
    } catch {
      return;
    }
  }
  await refill(r, key);
}

/**
 * The link out on a phone is voided on the worker (it credits nobody now), then the form, with every value as it
 * was. A person who finished on the phone meanwhile gets the outcome.
 */
async function withdraw(r: RunContext, then: () => void): Promise<void> {
  const stored = r.d.readStored();
  const signal = r.round();
  if (stored) {
    try {
      const answer = await withdrawLink(r.host.endpoint, { session: stored.session }, signal);
      if (answer.status === 'final') return void check(r);
    } catch (e) {
      if (signal.aborted) return;
      // A spent session has no link left to void; any other fault keeps the person where they were, told why.
      if (!isFailure(e) || e.status !== 401) {
        fail(r, e, 'result');
        return;
      }
    }
  }
  backToForm(r);
  then();
}

export function actionsOf(r: RunContext): RunActions {
  const flow = r.flow;
  return {
    useThisDevice() {
      void withdraw(r, () => {
        flow.sendSMS = flow.handoff = false;
        void flow.focus('button[type=submit]');
      });
    },
    changeNumber() {
      void withdraw(r, () => void flow.focus('#phoneNumber'));
    },
    sendAgain() {
      flow.resending = flow.state === 'sms-sent';
      flow.sendSMS = true;
      flow.handoff = false;
      void flow.submit();
    },
    /** After `SMS_NOT_ALLOWED`: the same details, on this device. */
    continueHere() {
      flow.sendSMS = false;
      flow.handoff = false;
      void flow.submit();
    },
    /** "Start again", "Change my details": the form, with every value as the person left it. */
    startAgain() {
      void startAgain(r);
    },
    continueCheck() {
      void continueCheck(r);
    },
    showNewCode() {
      void showNewCode(r);
    },
  };
}
