/**
 * The run: everything after the person submits, loaded as its own chunk by
 * `Flow.load()`. One module per step, each a few functions of the shared
 * `RunContext` (context.ts: the round under way, the state the run sets):
 * submit.ts (the request for a link), link.ts (where the link sends the
 * person), poll.ts (asking for the result), renew.ts (a new QR code for an
 * expired one), actions.ts (the buttons of its views: send again, use this
 * device, start again), resume.ts (a client secret, a return, a reload, the
 * element back in the page), outcome.ts (how a round ends). `install()`
 * only wires them to the flow.
 *
 * Runtime imports here are only modules the entry does not use (see `Deps`).
 */
import type { Deps, FlowApi } from '../flow-api.js';
import { actionsOf } from './actions.js';
import { RunContext } from './context.js';
import { fill } from './prefill.js';
import { check } from './poll.js';
import { left, resume, start } from './resume.js';
import { say } from './say.js';
import { submit } from './submit.js';
import { tidyCode, validate } from './validate.js';
import { adoptRunStyles } from './styles.js';
import { mirrorValidity } from './validity.js';
import { runViews } from './views/index.js';

/** The English of the states the run shows (widget/locale.ts adds it to the entry's). */
export { default as english } from '../i18n/en/run.js';

/** What the flow calls on the run. */
export interface Run {
  /** The rules, checked before any request (and shown after a submission). */
  validate: (typed: Parameters<typeof validate>[0]) => ReturnType<typeof validate>;
  /** A field left: the country code is tidied (`61`, `0061` → `+61`); errors wait for the submission. */
  blur(input: HTMLInputElement): void;
  /** Ask for a link with what the person typed, then go to the hosted flow, or wait for the phone (QR code, copied link, texted link). */
  submit(sendSMS: boolean, handoff?: boolean): Promise<void>;
  /** `checking`: ask for the result until it is final or the polling bound is reached. */
  check(): Promise<void>;
  /** After the first render: back from the hosted flow, or a session this tab left behind. */
  start(): void;
  /** Back from the hosted flow with no result in the URL: offer "Continue the check" and "Change my details" at once. */
  left(): void;
  /** `prefill` or `clientSecret` set after the start: a new client secret is resumed while the form is untouched by a request; else the prefill fills. */
  changed(secret: boolean): void;
}

/**
 * The run joins the flow: its views, its buttons and its word on a refused
 * number; and a controller of the element, so that leaving the page stops
 * asking and coming back goes on where it stopped.
 */
export function install(flow: FlowApi, d: Deps): Run {
  const r = new RunContext(flow, d);
  const host = flow.host;
  Object.assign(flow.views, runViews(d, actionsOf(r)));
  adoptRunStyles(host.renderRoot as ShadowRoot);
  mirrorValidity(flow);
  flow.say = say(flow);
  // Only a return to the page resumes: Lit calls `hostConnected` at once when the element is already in it.
  let away = !host.isConnected;
  // Going offline or back online changes what a wait says (it waits for the connection).
  const onLine = () => host.requestUpdate();
  // Back from the hosted flow, the page restored as it was left (back/forward cache; only the run redirects): what
  // was typed is still here; look at the result afresh.
  const onPageShow = (e: PageTransitionEvent) => {
    if (e.persisted && flow.state === 'redirecting') left(r);
  };
  host.addController({
    hostConnected() {
      if (away) resume(r);
      away = false;
      addEventListener('online', onLine);
      addEventListener('offline', onLine);
      addEventListener('pageshow', onPageShow);
    },
    hostDisconnected() {
      away = true;
      r.stop();
      removeEventListener('online', onLine);
      removeEventListener('offline', onLine);
      removeEventListener('pageshow', onPageShow);
    },
  });
  return {
    validate: (v) => validate(v, undefined, flow.settings?.minAge),
    blur(input) {
      if (input.name === 'phoneCode' && flow.showsForm()) {
        input.value = flow.values.phoneCode = tidyCode(input.value) || input.value;
        host.requestUpdate();
      }
    },
    submit: (sendSMS, handoff) => submit(r, sendSMS, handoff),
    check: () => check(r),
    start() {
      fill(flow);
      start(r);
    },
    left: () => left(r),
    changed(secret) {
      fill(flow);
      if (secret && flow.state === 'idle') start(r);
    },
  };
}
