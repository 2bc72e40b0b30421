/**
 * The phone's pages in English: the source of every translation
 * (worker/handoff/page-strings/<lang>.json, served as static assets) and the
 * fallback, bundled in the worker. Pages are `[title, message]`; `{n}` and
 * plurals are filled by rules/message.ts (`Intl.PluralRules`).
 */
export const PAGE_STRINGS_EN: PageDictionary = {
  done: ['All done', 'Go back to your computer: it continues there by itself. You can close this page.'],
  notFinished: ['We could not finish here', 'Go back to your computer to see what happens next. You can close this page.'],
  linkGone: [
    'This link no longer works',
    'It was already opened, or it has expired. Go back to where you started: a new one is shown there.',
  ],
  linkUsed:
    'It was already opened on a phone, and each link works only once. Go back to where you started: a new code is shown there to scan.',
  linkReplaced: 'A newer link was sent since: only the newest one works. Go back to where you started and use the code shown there now.',
  linkExpired: 'This link has expired: links work for a limited time. Go back to where you started: a new one is shown there.',
  linkWithdrawn: 'It was taken back on the screen where the check started (to continue another way). Go back there.',
  returnGone: ['This page was already used', 'If you finished the steps, go back to your computer: it continues there by itself.'],
  enterCode: ['One last step', 'Enter the code shown on the screen where you started. It keeps someone else from using your check.'],
  claimEnded: ['This check has ended', 'The code was entered wrongly too many times, or the time ran out. Start again where you began.'],
  tooMany: ['Please wait a moment', 'There were too many tries from this connection. Wait a minute, then open the link again.'],
  continueTitle: [
    'Continue your identity check',
    'You started an identity check on another screen. Continue here on this phone; at the end you will be asked for the code shown there.',
  ],
  requestedBy: 'Requested by {partner}.',
  continue: 'Continue',
  codeLabel: 'The 6-digit code on your computer',
  confirm: 'Confirm',
  sixDigits: 'Enter the 6 digits of the code.',
  wrongCode: 'That code is not right. {n, plural, one {# try} other {# tries}} left.',
};

/** The shape of a page dictionary, as stored (JSON): `[title, message]` for each page, then the pieces of the code form. */
export interface PageDictionary {
  done: readonly [string, string];
  notFinished: readonly [string, string];
  /** A handoff link that no longer works, when nothing more is known (the title of the next four too). */
  linkGone: readonly [string, string];
  /** linkGone's message when the link was already opened once (a phone used it). */
  linkUsed: string;
  /** linkGone's message when a newer link replaced it. */
  linkReplaced: string;
  /** linkGone's message when it expired. */
  linkExpired: string;
  /** linkGone's message when the first device took it back ("Use this device instead", "Change my number"). */
  linkWithdrawn: string;
  returnGone: readonly [string, string];
  enterCode: readonly [string, string];
  claimEnded: readonly [string, string];
  /** The client's request budget is spent (429). */
  tooMany: readonly [string, string];
  /** The handoff URL's page before the hosted flow (a GET never uses the link up). */
  continueTitle: readonly [string, string];
  /** `{partner}`: the partner's display name. */
  requestedBy: string;
  continue: string;
  codeLabel: string;
  confirm: string;
  sixDigits: string;
  /** `{n, plural, …}`: tries left after a wrong code. */
  wrongCode: string;
}
