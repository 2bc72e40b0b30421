/**
 * The run: everything after the person submits, loaded as its own chunk by
 * `Flow.load()`. The link request (with one automatic retry), the redirect,
 * the texted link, the return from the hosted flow, and polling for the
 * result. Each round owns one `AbortController`; starting another, or the
 * element leaving the page, aborts the previous one, so a late answer never
 * lands in a newer state.
 *
 * Runtime imports here are only modules the entry does not use (see `Deps`).
 */
import type { OnboardingLinkRequest, RenewLinkRequest, ResultAnswer, ResultRequest, ResumeLinkRequest } from '../../worker/contract.js';
import { createLink, failure, getResult, isFailure, newKey, withdrawLink, type LinkAnswer } from '../api.js';
import type { Deps, FlowApi as Flow } from '../flow-api.js';
import type { Stored } from '../return-session.js';
import { fieldOfIssue } from './issues.js';
import { pageUrl, takeReturn } from './return.js';
import { tidyCode, toRequest, validate } from './validate.js';
import { runViews } from './views/index.js';

/** The English of the states the run shows (widget/locale.ts adds it to the entry's). */
export { default as english } from '../i18n/en/run.js';

export interface Run {
  /** The rules, checked before any request (and shown after a submission). */
  validate: typeof validate;
  /** `61`, `0061` → `+61`. */
  tidyCode: typeof tidyCode;
  /** Ask for a link with what the person typed, then go to the hosted flow, or wait for the phone (QR code, copied link, texted link). */
  submit(sendSMS: boolean, handoff?: boolean): Promise<void>;
  /** `checking`: ask for the result until it is final or the polling bound is reached. */
  check(): Promise<void>;
  /** After the first render: back from the hosted flow, or a session this tab left behind. */
  start(): void;
  /** The element is back in the page: go on asking where the run stopped. */
  resume(): void;
  /** Stop asking (the element left the page, or the person starts again). */
  stop(): void;
  /** Back from the hosted flow with no result in the URL: offer "Continue the check" and "Change my details" at once. */
  left(): void;
  /** Put the `prefill` values into the fields the person has not typed in. */
  fill(): void;
}

/** How long after `urlExpiry` a link out in the world (texted, another tab) is still polled: the person may be finishing. */
const GRACE_MS = 10 * 60_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const id = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(id);
        resolve();
      },
      { once: true },
    );
  });

/** Only http(s) links may be followed or rendered. */
function safeUrl(u: string): string {
  const url = new URL(u, location.href);
  if (!/^https?:$/.test(url.protocol)) throw failure('BAD_ANSWER', 200, false);
  return url.href;
}

/** `+61 ••• ••• 678`: enough to recognise one's own number. */
export const maskPhone = (code: string, number: string): string =>
  number.startsWith('+') ? `••• ${number.slice(-3)}` : `${code} ••• ${number.slice(-3)}`;

export function install(flow: Flow, d: Deps): Run {
  Object.assign(flow.views, runViews(d));
  const host = flow.host;
  let round: AbortController | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let returnParams: Omit<ResultRequest, 'session'> = {};

  const newRound = (): AbortSignal => {
    round?.abort();
    round = new AbortController();
    return round.signal;
  };

  const stop = () => {
    round?.abort();
    clearInterval(ticker);
  };

  const set = (s: Flow['state']) => {
    flow.leftFlow = false;
    flow.set(s);
    // A second-by-second clock for the texted link's countdown, only while it is shown.
    clearInterval(ticker);
    if (s === 'sms-sent') {
      ticker = setInterval(() => {
        flow.now = Date.now();
        host.requestUpdate();
      }, 1000);
    }
  };

  /** A fault: `error`, `kyc-error`, the worker's field issues on their fields, and a word to the developer where it is theirs to fix. */
  const fail = (e: unknown, context: 'submit' | 'result') => {
    stop();
    const f = isFailure(e) ? e : failure('UNKNOWN', 0, false);
    flow.failure = { ...f, context };
    const unplaced: string[] = [];
    if (context === 'submit' && f.errorCode !== 'SMS_NOT_ALLOWED') {
      for (const issue of f.issues) {
        const hit = fieldOfIssue(issue.issueLocation);
        if (hit) flow._serverErrors[hit[0]] = hit[1];
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
    set('error');
    d.emit(host, 'kyc-error', { errorCode: f.errorCode, requestId: f.requestId, retryable: f.retryable, status: f.status });
    if (context === 'submit') void flow.focusFirstInvalid();
  };

  const redirect = (url: string) => {
    set('redirecting');
    if (!d.emit(host, 'kyc-redirect', { url }).defaultPrevented) host.navigate(url);
  };

  const complete = (answer: ResultAnswer) => {
    d.writeStored();
    stop();
    flow.checkStatus = answer.checkStatus;
    set('complete');
    d.emit(host, 'kyc-complete', {
      checkStatus: answer.checkStatus,
      verificationId: answer.verificationId,
      resultToken: answer.resultToken!,
      mayStartAnother: !answer.checkStatus.startsWith('CHECKED_SUCCESS'),
    });
    // The outcome is new content: focus its heading, so it is read out wherever focus was.
    void host._focus('#focus');
  };

  /**
   * The attempt ended `requires_input` (no match: maybe a typo): the form as it was, with what to check above it;
   * sending it is the next attempt of the same verification (its session goes with it).
   */
  const requiresInput = (session: string) => {
    d.writeStored();
    stop();
    flow.attempt = session;
    flow.failure = undefined;
    set('idle');
    void host._focus('#focus');
  };

  /**
   * Ask for the result until it is final. `checking` asks once per
   * `pollIntervals` wait and then gives up (`RESULT_PENDING`); with a link
   * still out (`long`: texted, or open in this tab, a popup or another tab)
   * the last wait repeats until the link has expired (plus a grace period),
   * and a hiccup is not the person's problem.
   */
  const poll = async (session: string, long: boolean): Promise<void> => {
    const signal = newRound();
    let expiry = 0;
    let until = 0;
    const bounds = () => {
      expiry = Date.parse(flow.link?.urlExpiry ?? '');
      until = (Number.isNaN(expiry) ? Date.now() + 20 * 60_000 : expiry) + GRACE_MS;
    };
    bounds();
    for (let i = 0; ; i++) {
      try {
        const answer = await getResult(host.endpoint, { session, ...returnParams }, signal);
        if (signal.aborted) return;
        if (answer.status === 'requires_input') {
          requiresInput(session);
          return;
        }
        if (answer.checkStatus && answer.checkStatus !== 'CHECKING') {
          complete(answer);
          return;
        }
        if (answer.phoneOpened && !flow.phoneOpened) {
          flow.phoneOpened = true;
          host.requestUpdate();
        }
        // The phone is done (back from the hosted flow, its code entered): no more waiting for it.
        if (answer.phoneReturned && (flow.state === 'handoff' || flow.state === 'sms-sent')) set('checking');
        // The QR code on screen always works: an expired one is replaced
        // without asking (the same verification). A texted link is not: only
        // the person's "Send again" texts again.
        if (flow.state === 'handoff' && Date.now() >= expiry) {
          const renewed = await renew(session, signal);
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may have changed during the await
          if (signal.aborted) return;
          if (renewed) {
            session = renewed;
            bounds();
          }
        }
      } catch (e) {
        if (signal.aborted) return;
        // Unless the session itself is gone (or can get no new link), keep asking while the link is out.
        if (!long || (isFailure(e) && (e.status === 401 || e.status === 409))) {
          fail(e, 'result');
          return;
        }
      }
      const waits = host.pollIntervals; // read each time: a change applies to the next wait
      const wait = long ? waits[Math.min(i, waits.length - 1)] : waits[i];
      if (wait === undefined || (long && Date.now() > until)) {
        if (!long) fail(failure('RESULT_PENDING', 0, true), 'result');
        return;
      }
      await sleep(wait, signal);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may have changed during the await
      if (signal.aborted) return;
    }
  };

  /**
   * A new link for the same verification, from its session (the handoff's
   * link expired): the new session. Undefined when none can be had now: the
   * view then says the link has expired and offers starting again (polling
   * goes on: a phone already in the flow may finish), and the next poll tries
   * again. A spent session or an ended verification (401, 409) and faults a
   * retry may mend are thrown, as for a result.
   */
  const renew = async (session: string, signal: AbortSignal): Promise<string | undefined> => {
    const expired = () => {
      flow.linkExpired = true;
      host.requestUpdate();
      return undefined;
    };
    const bot = host._bot?.token;
    // Where Turnstile is on, a new link needs a fresh token too.
    if (host.turnstileSitekey && !bot) {
      expired();
      return;
    }
    const body: RenewLinkRequest = { session, lang: host._lang, ...(bot ? { turnstileToken: bot } : {}) };
    let answer: LinkAnswer;
    try {
      answer = await createLink(host.endpoint, body, newKey(), signal);
    } catch (e) {
      if (isFailure(e) && e.status >= 400 && e.status < 500 && ![401, 409, 429].includes(e.status)) {
        expired();
        return;
      }
      throw e;
    } finally {
      if (bot) host._bot?.reset(); // Turnstile tokens are single-use
    }
    if (signal.aborted) return undefined;
    if (!answer.url || !answer.qr) throw failure('BAD_ANSWER', 200, false);
    const url = safeUrl(answer.url);
    flow.renewed = true;
    flow.claimCode = answer.claimCode ?? flow.claimCode; // the same code: the verification keeps it
    holdLink(answer, url, { handoff: { url, qr: answer.qr }, ...(flow.claimCode ? { code: flow.claimCode } : {}) });
    host.requestUpdate();
    return answer.session;
  };

  /** A link is out: what the views show, what a reload needs (`keep`, with the session), and `kyc-link`. */
  const holdLink = (answer: LinkAnswer, url: string, keep: Omit<Stored, 'session' | 'urlExpiry'>) => {
    flow.link = { urlExpiry: answer.localExpiry, ...(url ? { url } : {}) };
    flow.qr = answer.qr;
    flow.copied = flow.phoneOpened = flow.linkExpired = false;
    d.writeStored({ session: answer.session, urlExpiry: answer.localExpiry, ...keep });
    d.emit(host, 'kyc-link', {
      url,
      urlExpiry: answer.urlExpiry,
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- parsed JSON: a renewal's answer may leave it out
      smsSent: !!answer.smsSent,
      verificationId: answer.verificationId,
    });
  };

  /** With `client-secret`: a verification the partner's server started. The page's `customer-ref` does not apply. */
  let warned = false;
  const secret = (): string | undefined => {
    if (host.clientSecret && host.customerRef && !warned) {
      warned = true;
      console.warn(
        "<kyc-onboard>: customer-ref is ignored when client-secret is set: the verification's customerRef is the one your server gave it.",
      );
    }
    return host.clientSecret || undefined;
  };

  /**
   * Ask for a link (with one automatic retry after a network fault or a
   * 502/503/504), then go to the hosted flow, or wait for the phone.
   * `handoff` says a QR code was asked for; a resume (`phone` unknown) goes the way its first link went.
   */
  const link = async (
    body: OnboardingLinkRequest | RenewLinkRequest | ResumeLinkRequest,
    handoff: boolean,
    signal: AbortSignal,
  ): Promise<void> => {
    const key = newKey(); // one per submission; reused by the automatic retry below
    let answer: LinkAnswer;
    try {
      answer = await createLink(host.endpoint, body, key, signal);
    } catch (e) {
      if (!isFailure(e) || !(e.status === 0 || e.status >= 502)) throw e;
      await sleep(host.retryDelay, signal);
      if (signal.aborted) return;
      answer = await createLink(host.endpoint, body, key, signal);
    }
    if (signal.aborted) return;
    // A texted link comes with a code and no URL: this tab never holds the hosted flow's address.
    const url = answer.url ? safeUrl(answer.url) : '';
    flow.phone = 'phone' in body && body.phone ? maskPhone(body.phone.code, body.phone.number) : '';
    flow.claimCode = answer.claimCode ?? '';
    flow.renewed = false;
    // What a reload or Back needs to go on: the texted number and code, or the phone's link and QR code.
    const handedOff = !answer.smsSent && answer.qr && handoff ? answer.qr : undefined;
    holdLink(answer, url, {
      ...(answer.smsSent ? { phone: flow.phone, ...(flow.claimCode ? { code: flow.claimCode } : {}) } : {}),
      ...(handedOff ? { handoff: { url, qr: handedOff }, ...(flow.claimCode ? { code: flow.claimCode } : {}) } : {}),
      ...(!answer.smsSent && !handedOff && url ? { url } : {}),
    });
    // While the link is out (a text message; the hosted flow in this tab, a popup or another tab), this tab
    // keeps asking, so it reaches the outcome wherever the person finishes.
    void poll(answer.session, true);
    if (answer.smsSent) {
      set('sms-sent');
      void host._focus('#focus');
    } else if (handedOff) {
      // The URL is the worker's single-use handoff link, for the phone: this tab waits.
      set('handoff');
      void host._focus('#focus');
    } else redirect(url);
  };

  /**
   * Opened with a client secret (no return, no session in this tab): where is
   * that verification? Final: `complete` at once, with its token. Open: the
   * same hosted flow again. Created: the form. Canceled or expired: the
   * worker's 409 `VERIFICATION_CLOSED`.
   */
  const resume = async (clientSecret: string): Promise<void> => {
    const signal = newRound();
    try {
      const answer = await getResult(host.endpoint, { clientSecret }, signal);
      if (signal.aborted) return;
      if (answer.checkStatus !== 'CHECKING') {
        complete(answer);
        return;
      }
      if (answer.status !== 'open') return;
      await link({ clientSecret, lang: host._lang, returnUrl: host.returnUrl || pageUrl() }, true, signal);
    } catch (e) {
      if (!signal.aborted) fail(e, 'result');
    }
  };

  const check = async (): Promise<void> => {
    const stored = d.readStored();
    if (!stored) {
      fail(failure('NO_SESSION', 0, false), 'result');
      return;
    }
    flow.failure = undefined;
    set('checking');
    return poll(stored.session, false);
  };

  /** A refused number says which country its code is: "+61 is Australia: is that right?". */
  flow.say = ({ t, lang }, key) => {
    const code = flow.values.phoneCode;
    const region = key === 'errNumber' ? flow.codes?.regionsOf(code)[0] : undefined;
    if (!region) return t[key];
    const country = new Intl.DisplayNames([lang], { type: 'region' }).of(region) ?? region;
    return `${t[key]} ${t.countryIs.replace('{code}', code).replace('{country}', country)}`;
  };

  /**
   * "Use this device instead", "Change my number": the link out on a phone is voided on the worker (it credits
   * nobody now), then the form, with every value as it was. A person who finished on the phone meanwhile gets the outcome.
   */
  const withdraw = async (then: () => void) => {
    const stored = d.readStored();
    const signal = newRound();
    if (stored) {
      try {
        const answer = await withdrawLink(host.endpoint, { session: stored.session }, signal);
        if (answer.status === 'final') return void check();
      } catch (e) {
        if (signal.aborted) return;
        // A spent session has no link left to void; any other fault keeps the person where they were, told why.
        if (!isFailure(e) || e.status !== 401) {
          fail(e, 'result');
          return;
        }
      }
    }
    d.writeStored();
    stop();
    flow.failure = undefined;
    set('idle');
    then();
  };
  flow.useThisDevice = () => {
    void withdraw(() => {
      flow.sendSMS = flow.handoff = false;
      void host._focus('button[type=submit]');
    });
  };
  flow.changeNumber = () => {
    void withdraw(() => void host._focus('#phoneNumber'));
  };
  flow.sendAgain = () => {
    flow.resending = flow.state === 'sms-sent';
    flow.sendSMS = true;
    flow.handoff = false;
    void flow.submit();
  };
  /** After `SMS_NOT_ALLOWED`: the same details, on this device. */
  flow.continueHere = () => {
    flow.sendSMS = false;
    flow.handoff = false;
    void flow.submit();
  };
  /** "Start again", "Change my details": the form, with every value as the person left it. */
  flow.startAgain = () => {
    d.writeStored();
    stop();
    flow.failure = undefined;
    set('idle');
    void host._focus('input');
  };
  flow.continueCheck = () => {
    if (flow.link?.url) redirect(flow.link.url);
  };
  const left = () => {
    const stored = d.readStored();
    if (!stored) return void check();
    flow.link = { urlExpiry: stored.urlExpiry ?? '', ...(stored.url ? { url: stored.url } : {}) };
    flow.failure = undefined;
    set('checking');
    flow.leftFlow = true;
    host.requestUpdate();
    void host._focus('#focus');
    // A check finished in another tab (or the hosted flow's own redirect lost) still reaches the outcome.
    void poll(stored.session, true);
  };

  return {
    validate,
    tidyCode,
    check,
    stop,
    left,

    fill() {
      const p = host.prefill;
      if (!p || !flow.showsForm()) return;
      const v = flow.values;
      const put = (k: 'givenName' | 'middleName' | 'familyName' | 'dobDay' | 'dobMonth' | 'dobYear' | 'phoneNumber', x?: string) => {
        if (typeof x === 'string' && x && !flow.typed.has(k)) v[k] = x;
      };
      put('givenName', p.name?.givenName);
      put('middleName', p.name?.middleName);
      put('familyName', p.name?.familyName);
      const dob = /^(\d{4})-(\d{2})-(\d{2})$/.exec(p.dateOfBirth ?? '');
      if (dob) {
        put('dobDay', String(Number(dob[3])));
        put('dobMonth', String(Number(dob[2])));
        put('dobYear', dob[1]);
      }
      // The country code has a default: the prefill's wins while no number is typed.
      if (typeof p.phone?.code === 'string' && p.phone.code && !flow.typed.has('phoneNumber') && !flow.typed.has('phoneCode'))
        v.phoneCode = p.phone.code;
      put('phoneNumber', p.phone?.number);
      host.requestUpdate();
    },

    start() {
      this.fill();
      const clientSecret = secret();
      if (flow.state === 'idle' && clientSecret) return void resume(clientSecret);
      if (flow.state !== 'checking') return; // the person moved on while the run was loading
      const back = takeReturn();
      const stored = d.readStored();
      if (back) {
        returnParams = back;
        if (stored) return void check();
        flow.notice = true;
        set('idle');
        void host._focus('#focus');
      } else if (stored) {
        flow.link = { urlExpiry: stored.urlExpiry ?? '' };
        if (stored.handoff) {
          flow.link = { urlExpiry: stored.urlExpiry ?? '', url: stored.handoff.url };
          flow.qr = stored.handoff.qr;
          flow.claimCode = stored.code ?? '';
          set('handoff');
          void poll(stored.session, true);
        } else if (stored.phone) {
          flow.phone = stored.phone;
          flow.claimCode = stored.code ?? '';
          set('sms-sent');
          void poll(stored.session, true);
        } else left(); // Back (or a reload) with no result in the URL
      } else set('idle');
    },

    resume() {
      const stored = d.readStored();
      const s = flow.state;
      if (stored && (s === 'checking' || s === 'sms-sent' || s === 'handoff' || s === 'redirecting')) {
        set(s);
        // `checking` after a phone finished still waits as long as its link allows.
        void poll(stored.session, s !== 'checking' || !!(stored.handoff || stored.phone));
      }
    },

    async submit(sendSMS, handoff = false) {
      const again = flow.resending;
      flow.resending = false;
      flow.resendWait = 0;
      const signal = newRound(); // also stops the polling of an earlier link ("Send again")
      returnParams = {}; // a new link: an earlier return's checkId/token no longer apply
      const full: OnboardingLinkRequest = { ...toRequest(flow.values), returnUrl: host.returnUrl || pageUrl() };
      if (sendSMS) full.sendSMS = true;
      else if (handoff) full.handoff = true;
      // The phone's pages (a handoff, a texted link) speak the widget's language.
      if (sendSMS || handoff) full.lang = host._lang;
      const clientSecret = secret();
      if (clientSecret) full.clientSecret = clientSecret;
      else if (flow.attempt)
        full.session = flow.attempt; // the next attempt, with the corrected details
      else if (host.customerRef) full.customerRef = host.customerRef;
      // "Send again": a new text of the same verification (its session and the number), never a new code.
      const texted = again ? d.readStored() : undefined;
      const body: OnboardingLinkRequest | RenewLinkRequest = texted?.phone
        ? { session: texted.session, sendSMS: true, phone: full.phone, lang: host._lang }
        : full;
      const bot = host._bot?.token;
      if (bot) body.turnstileToken = bot;
      try {
        await link(body, handoff, signal);
        flow.attempt = undefined;
      } catch (e) {
        if (signal.aborted) return;
        const stored = again && isFailure(e) ? d.readStored() : undefined;
        if (stored?.phone && isFailure(e)) {
          // "Send again" refused (too many texts) or failed: the text already
          // out still works, so say when to try again and keep waiting for it.
          flow.resendWait = e.retryAfter ?? 60;
          set('sms-sent');
          d.emit(host, 'kyc-error', { errorCode: e.errorCode, requestId: e.requestId, retryable: e.retryable, status: e.status });
          void poll(stored.session, true);
          void host._focus('#resend');
          return;
        }
        fail(e, 'submit');
      } finally {
        if (bot) host._bot?.reset(); // Turnstile tokens are single-use
      }
    },
  };
}
