/**
 * The one state union that drives rendering. Each state has one view in
 * `views/` (see `views/index.ts`); adding a state means adding its name here
 * and its view there.
 */
export type KycState = 'idle' | 'submitting' | 'redirecting' | 'handoff' | 'sms-sent' | 'checking' | 'complete' | 'error';

/** Where a fault happened: while asking for a link (the form stays) or while fetching the result. */
export type FailureContext = 'submit' | 'result';
