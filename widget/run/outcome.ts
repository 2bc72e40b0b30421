/**
 * How a round ends: a fault (`error`), the outcome (`complete`), the next
 * attempt (`requires_input`: the form again), or the way to the hosted flow
 * (`redirecting`).
 */
import type { ResultAnswer } from '../../worker/contract.js';
import { failure, isFailure } from '../api.js';
import type { RunContext } from './context.js';
import { fieldOfIssue } from './issues.js';

/** A fault: `error`, `kyc-error`, the worker's field issues on their fields, and a word to the developer where it is theirs to fix. */
export function fail(r: RunContext, e: unknown, context: 'submit' | 'result'): void {
  const { flow, host, d } = r;
  r.stop();
  const f = isFailure(e) ? e : failure('UNKNOWN', 0, false);
  flow.failure = { ...f, context };
  const unplaced: string[] = [];
  if (context === 'submit' && f.errorCode !== 'SMS_NOT_ALLOWED') {
    for (const issue of f.issues) {
      const hit = fieldOfIssue(issue.issueLocation);
      if (hit) flow.serverErrors[hit[0]] = hit[1];
      else unplaced.push(`${issue.issueLocation} ${issue.issue}`);
    }
  }
  if (f.errorCode === 'ORIGIN_NOT_ALLOWED') {
    console.error(
      `<kyc-onboard>: the worker refused this page's origin (${location.origin}): add it to the worker's ALLOWED_ORIGINS (or to the partner's origins). Request ${f.requestId}.`,
    );
  }
  if (f.errorCode === 'CLIENT_SECRET_INVALID') {
    console.error(
      `<kyc-onboard>: the worker refused client-secret: it is not the clientSecret your server got from POST /v1/verifications for this site's partner (another partner's or environment's, altered or cut short, or this page's origin is not the partner's). Pass the clientSecret of the verification, as it is. Request ${f.requestId}.`,
    );
  }
  if (unplaced.length) console.error(`<kyc-onboard>: the worker refused the request: ${unplaced.join('; ')}. Request ${f.requestId}.`);
  r.set('error');
  d.emit(host, 'kyc-error', { errorCode: f.errorCode, requestId: f.requestId, retryable: f.retryable, status: f.status });
  if (context === 'submit') void flow.focusFirstInvalid();
}

/** To the hosted flow, unless the page vetoes `kyc-redirect`. */
export function redirect(r: RunContext, url: string): void {
  r.set('redirecting');
  if (!r.d.emit(r.host, 'kyc-redirect', { url }).defaultPrevented) r.host.navigate(url);
}

/** A final check status: `complete` and `kyc-complete`; the session is forgotten. */
export function complete(r: RunContext, answer: ResultAnswer): void {
  const { flow, host, d } = r;
  d.writeStored();
  r.stop();
  flow.checkStatus = answer.checkStatus;
  r.set('complete');
  d.emit(host, 'kyc-complete', {
    checkStatus: answer.checkStatus,
    verificationId: answer.verificationId,
    resultToken: answer.resultToken!,
    mayStartAnother: !answer.checkStatus.startsWith('CHECKED_SUCCESS'),
  });
  // The outcome is new content: focus its heading, so it is read out wherever focus was.
  void flow.focus('#focus');
}

/**
 * The attempt ended `requires_input` (no match: maybe a typo): the form as it was, with what to check above it;
 * sending it is the next attempt of the same verification (its session goes with it).
 */
export function requiresInput(r: RunContext, session: string): void {
  const flow = r.flow;
  r.d.writeStored();
  r.stop();
  flow.attempt = session;
  flow.failure = undefined;
  r.set('idle');
  void flow.focus('#focus');
}

/** The form again, with every value as the person left it; the session is forgotten. */
export function backToForm(r: RunContext): void {
  r.d.writeStored();
  r.stop();
  r.flow.failure = undefined;
  r.set('idle');
}
