/**
 * What the run's steps share: the flow they move on, the element, the entry's
 * helpers, the round under way and what a return from the hosted flow
 * brought. Each round (a link request, a polling, a withdrawal) owns one
 * `AbortController`; starting another, or the element leaving the page,
 * aborts the previous one, so a late answer never lands in a newer state.
 */
import type { ResultRequest } from '../../worker/contract.js';
import type { Deps, FlowApi, FlowHost } from '../flow-api.js';
import type { KycState } from '../state.js';

export class RunContext {
  readonly host: FlowHost;
  /** What the return brought (how it ended, the vendor's parameters), sent with each result request until a new link. */
  returnParams: Omit<ResultRequest, 'session'> = {};
  /** The worker's key to the form values this tab kept (kept-form.ts), from its last result answer. */
  formKey?: string;
  /** `customer-ref` beside `client-secret` was pointed out to the developer (once). */
  warnedRef = false;
  /** No new code could replace the one the phone opened: the poll stops trying by itself ("Show a new code" still may). */
  keepUsedCode = false;
  private _round?: AbortController;
  private _ticker?: ReturnType<typeof setInterval>;

  constructor(
    readonly flow: FlowApi,
    readonly d: Deps,
  ) {
    this.host = flow.host;
  }

  /** A new round: the previous one is aborted. */
  round(): AbortSignal {
    this._round?.abort();
    this._round = new AbortController();
    return this._round.signal;
  }

  /** Stop asking (the element left the page, the person starts again, an outcome is here). */
  stop(): void {
    this._round?.abort();
    clearInterval(this._ticker);
  }

  /** The run's way to a new state (the "left the hosted flow" choice ends with it). */
  set(s: KycState): void {
    const flow = this.flow;
    flow.leftFlow = false;
    flow.set(s);
    // Focus follows the person into the new panel (its message, or the fault), so it is read out and the keyboard
    // is where the ways on are. The form's own states place focus themselves (a field, the submit button).
    if (s !== 'idle' && s !== 'submitting') void flow.focus('#focus, #alert');
    if (s === 'checking') flow.slowBy = undefined;
    // A second-by-second clock for the texted link's countdown, only while it is shown.
    clearInterval(this._ticker);
    if (s === 'sms-sent') {
      this._ticker = setInterval(() => {
        flow.now = Date.now();
        this.host.requestUpdate();
      }, 1000);
    }
  }
}

/** Wait `ms`, or less when the round is aborted. */
export const sleep = (ms: number, signal: AbortSignal) =>
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
