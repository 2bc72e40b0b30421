/**
 * The buttons of the run's views: "Use this device instead" and "Change my
 * number" (the link out on a phone is voided first), "Send again", (after
 * `SMS_NOT_ALLOWED`) "Continue on this device", "Start again" and (back from
 * the hosted flow) "Continue the check".
 */
import { isFailure, withdrawLink } from '../api.js';
import type { RunContext } from './context.js';
import { backToForm, fail, redirect } from './outcome.js';
import { check } from './poll.js';

export interface RunActions {
  useThisDevice: () => void;
  changeNumber: () => void;
  sendAgain: () => void;
  continueHere: () => void;
  startAgain: () => void;
  continueCheck: () => void;
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
      backToForm(r);
      void flow.focus('input');
    },
    continueCheck() {
      if (flow.link?.url) redirect(r, flow.link.url);
    },
  };
}
