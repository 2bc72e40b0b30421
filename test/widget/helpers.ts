// Shared helpers of the widget's browser tests: msw as the worker, element queries, form filling.
import { executeServerCommand, sendKeys as sendKeysAtOnce } from '@web/test-runner-commands';
import { fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { http, HttpResponse, type DefaultBodyType } from 'msw';
import { setupWorker } from 'msw/browser';
import type {
  OnboardingLinkAnswer,
  OnboardingLinkRequest,
  ResultRequest,
  SettingsAnswer,
  WithdrawLinkRequest,
} from '../../worker/contract.js';
import '../../widget/index.js';
import { adultDateOfBirth } from '../support/dates.js';
import { resultOfStatus } from '../../worker/vendors/result.js';
import type { KycOnboard, KycState } from '../../widget/index.js';

export const worker = setupWorker();
let started: Promise<unknown> | undefined;

/** Start msw once per page (the service worker is served at /mockServiceWorker.js by the test-runner config). */
export function startMsw(): Promise<unknown> {
  return (started ??= worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'bypass', quiet: true }));
}

export interface LinkCall {
  body: OnboardingLinkRequest;
  key: string | null;
}
export interface ResultCall {
  body: ResultRequest;
}
export interface WithdrawCall {
  body: WithdrawLinkRequest;
}
type Reply = Response | HttpResponse<DefaultBodyType> | Promise<Response | HttpResponse<DefaultBodyType>>;

export const linkAnswer = (over: Partial<OnboardingLinkAnswer> = {}): OnboardingLinkAnswer => ({
  url: 'https://hosted.example/flow/abc',
  urlExpiry: new Date(Date.now() + 10 * 60_000).toISOString(),
  status: 'OK',
  smsSent: false,
  session: 'sess-123',
  verificationId: 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ',
  ...over,
});

export const errorAnswer = (
  status: number,
  errorCode: string,
  issues: { issue: string; issueLocation: string }[] = [],
  headers: Record<string, string> = {},
) => HttpResponse.json({ errorCode, errorMsg: errorCode.toLowerCase(), issues, requestId: `req-${status}` }, { status, headers });

/**
 * Install the worker double. `link(call, n)` / `result(call, n)` answer the
 * n-th call (0-based); defaults: a redirect link, and `CHECKED_SUCCESS_CLEAR`
 * once back from the hosted flow (`returned`, `hint`; `CHECKING` before).
 * Returns the recorded calls.
 */
export function mockApi(
  opts: {
    link?: (call: LinkCall, n: number) => Reply;
    result?: (call: ResultCall, n: number) => Reply;
    withdraw?: (call: WithdrawCall, n: number) => Reply;
    /** The partner's settings (`GET /api/settings`); default: none set. */
    settings?: SettingsAnswer;
  } = {},
) {
  const calls = { link: [] as LinkCall[], result: [] as ResultCall[], withdraw: [] as WithdrawCall[], settings: 0 };
  worker.resetHandlers(
    http.get('/api/settings', () => {
      calls.settings++;
      return HttpResponse.json(opts.settings ?? {});
    }),
    // "Use this device instead", "Change my number": the worker voids the handed-off link (default: it was still open).
    http.post('/api/withdraw-link', async ({ request }) => {
      const call = { body: (await request.json()) as WithdrawLinkRequest };
      calls.withdraw.push(call);
      return opts.withdraw
        ? opts.withdraw(call, calls.withdraw.length - 1)
        : HttpResponse.json({ verificationId: linkAnswer().verificationId, status: 'canceled' });
    }),
    http.post('/api/onboarding-link', async ({ request }) => {
      const call = { body: (await request.json()) as OnboardingLinkRequest, key: request.headers.get('Idempotency-Key') };
      calls.link.push(call);
      return opts.link ? opts.link(call, calls.link.length - 1) : HttpResponse.json(linkAnswer());
    }),
    http.post('/api/result', async ({ request }) => {
      const call = { body: (await request.json()) as ResultRequest };
      calls.result.push(call);
      if (opts.result) return asTheWorkerAnswers(await opts.result(call, calls.result.length - 1));
      // Like the vendor: final once the person came back from the hosted flow (`returned`, with its parameters as
      // the hint), still CHECKING for the tab that keeps asking while the link is out.
      return asTheWorkerAnswers(
        HttpResponse.json(
          call.body.hint || call.body.returned
            ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'header.claims.signature' }
            : { checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId },
        ),
      );
    }),
  );
  return calls;
}

/**
 * A `/api/result` answer as the worker gives it: with its `status` (the
 * worker always sends one: `open` while the deprecated word is CHECKING, else
 * `final`), and once final with `result` (the idv vendor's mapping of its
 * `checkStatus`) and `vendor`, unless the test wrote its own. The widget
 * decides from `status` and `result`, never from the word.
 */
async function asTheWorkerAnswers(reply: Response): Promise<Response> {
  if (!reply.ok) return reply;
  const body = (await reply
    .clone()
    .json()
    .catch(() => undefined)) as { checkStatus?: unknown; status?: unknown; result?: unknown } | undefined;
  if (!body || typeof body.checkStatus !== 'string') return reply;
  const status = body.status ?? (body.checkStatus === 'CHECKING' ? 'open' : 'final');
  const result = status === 'final' && body.result === undefined ? resultOfStatus(body.checkStatus) : undefined;
  if (status === body.status && !result) return reply;
  return HttpResponse.json(
    { ...body, status, ...(result ? { result, vendor: 'idv' } : {}) },
    { status: reply.status, headers: reply.headers },
  );
}

/** A promise with its resolve function, to hold a response while the test looks at `submitting`. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export async function mount(template = html`<kyc-onboard></kyc-onboard>`): Promise<KycOnboard> {
  await startMsw();
  const el = await fixture<KycOnboard>(template);
  el.navigate = () => {
    throw new Error('navigate() called without a stub');
  };
  el.retryDelay = 0;
  el.pollIntervals = [0, 0, 0];
  // The test page is an Australian partner's unless the test says otherwise (the browser's own region would win).
  if (!el.hasAttribute('country-code') && !el.hasAttribute('lang')) el.countryCode = '+61';
  // The run chunk (submission, rules, polling) arrives on the first focus in the form, as a person's first
  // click or Tab would fetch it: have it here, so a test's submit is handled at once.
  el.shadowRoot!.querySelector('form')?.dispatchEvent(new FocusEvent('focusin'));
  await import('../../widget/run/index.js');
  await import('../../widget/calling-codes.js'); // the default country code, and where texts may go
  const flow = flowOf(el);
  await until(() => flow._loaded !== undefined && flow.codes !== undefined, 'the run chunk and the calling codes');
  await el.updateComplete;
  return el;
}

export const $ = <T extends Element = HTMLInputElement>(el: KycOnboard, sel: string): T => {
  const found = el.shadowRoot!.querySelector<T>(sel);
  if (!found) throw new Error(`no ${sel} in the shadow root`);
  return found;
};
export const maybe = (el: KycOnboard, sel: string) => el.shadowRoot!.querySelector<HTMLElement>(sel);
export const text = (el: KycOnboard) => (el.shadowRoot!.textContent ?? '').replace(/\s+/g, ' ').trim();

/** Set a field as a person would (value + input event), then leave it. */
export async function type(el: KycOnboard, id: string, value: string): Promise<void> {
  const input = $(el, `#${id}`);
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.blur();
  await el.updateComplete;
}

export async function check(el: KycOnboard, id: string): Promise<void> {
  $(el, `#${id}`).click();
  await el.updateComplete;
}

export const valid = { familyName: 'Citizen', givenName: 'Jane', dateOfBirth: adultDateOfBirth(), phoneNumber: '0412 345 678' };

/** Type a `YYYY-MM-DD` date of birth into the Day, Month and Year fields. */
export async function typeDob(el: KycOnboard, iso: string): Promise<void> {
  const [year = '', month = '', day = ''] = iso.split('-');
  await type(el, 'dobDay', day);
  await type(el, 'dobMonth', month);
  await type(el, 'dobYear', year);
}

export async function fillValid(el: KycOnboard, v: Partial<typeof valid> = {}): Promise<void> {
  const all = { ...valid, ...v };
  for (const [id, value] of Object.entries(all)) await (id === 'dateOfBirth' ? typeDob(el, value) : type(el, id, value));
  await check(el, 'consent');
}

/**
 * How long a wait may take before it fails: long enough for a busy machine (the first test of a file also loads the
 * widget's chunks through the dev server), and only ever spent when something is wrong.
 */
const WAIT_MS = 8000;

/** The element's flow, as far as `submit` looks into it (white box: nothing public says the run chunk has arrived). */
const flowOf = (el: KycOnboard) =>
  (el as unknown as { _flow: { _run?: Promise<unknown>; _loaded?: unknown; _busy: boolean; codes?: unknown } })._flow;

/**
 * Presses the submit button and returns once the press was handled: a press before the run chunk arrived (its
 * prefetch starts a task after the first focus) first waits for it, then checks the fields; a failed load ends it too.
 */
export async function submit(el: KycOnboard): Promise<void> {
  const flow = flowOf(el);
  $(el, 'button[type=submit]').click();
  // The press is handled once the fields were checked: it is over (refused fields, a failed load), or it submits.
  await waitUntil(() => !flow._busy || el.state === 'submitting', 'the press handled', { timeout: WAIT_MS });
  await el.updateComplete;
}

export const waitState = (el: KycOnboard, state: KycState, msg?: string) =>
  waitUntil(() => el.state === state, msg ?? `state ${state} (is ${el.state})`, { timeout: WAIT_MS });

/** Count elements by ARIA role and exact accessible name, as the browser's accessibility tree sees them. */
export const countRole = (role: string, name: string, within?: string) =>
  executeServerCommand<number, { role: string; name: string; within?: string }>('count-role', { role, name, within });

export { oneEvent };

/**
 * Keys as a person presses them: `type` one key at a time (down, up), then the next. @web/test-runner-webdriver
 * hands a whole `type` to webdriverio's `keys`, which holds every key down before releasing any; WebKitGTK then drops
 * a key pressed again while still down ("1990" arrives as "190").
 */
export async function sendKeys(keys: { type: string } | { press: string }): Promise<void> {
  if ('press' in keys) await sendKeysAtOnce(keys);
  else for (const key of keys.type) await sendKeysAtOnce({ press: key });
}

/**
 * The page's viewport, in every engine: @web/test-runner's own `setViewport` refuses WebDriver (WebKitGTK), whose
 * window the config sizes instead (web-test-runner.config.mjs). `'unsupported'` where the window cannot be that small
 * (MiniBrowser's is never narrower than 447 px): the test skips that check, saying why.
 */
export const setViewport = (size: { width: number; height: number }) =>
  executeServerCommand<true | 'unsupported', { width: number; height: number }>('viewport', size);

/** Wait for a condition (a chunk arriving, a dictionary switching in): no fixed sleeps. */
export const until = (fn: () => boolean, msg: string) => waitUntil(fn, msg, { timeout: WAIT_MS });

/** The text of the label of `id`, once it equals `expected` (non-English dictionaries arrive as chunks). */
export async function labelIs(el: KycOnboard, id: string, expected: string): Promise<void> {
  await until(() => el.shadowRoot!.querySelector(`label[for=${id}]`)?.textContent === expected, `label of ${id} is ${expected}`);
}

/** Fill the form validly, choose "Text me a link", submit, and wait for `sms-sent` to render. */
export async function reachSmsSent(el: KycOnboard): Promise<void> {
  await fillValid(el);
  await check(el, 'sms');
  await submit(el);
  await waitState(el, 'sms-sent');
  await el.updateComplete;
}

/** `/api/result` answers: `CHECKING` for the first `checking` polls (with `extra(n)`), then a clear success with a token. */
export const finalAfter =
  (checking: number, extra: (n: number) => object = () => ({})) =>
  (_call: ResultCall, n: number) =>
    HttpResponse.json(
      n < checking
        ? { checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, ...extra(n) }
        : { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'h.c.s' },
    );
