/**
 * Cloudflare Turnstile glue, loaded (as its own chunk) only when
 * `turnstile-sitekey` is set: it adds the challenge to the `turnstile` slot
 * (the light DOM, where Turnstile's iframe must live) and keeps its token.
 */
import type { FlowApi } from './flow-api.js';

const SRC = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

interface Turnstile {
  render(el: HTMLElement, opts: Record<string, unknown>): string | undefined;
  reset(id?: string): void;
}

export class Bot {
  /** The current token; single-use, so `reset()` after sending it. */
  token = '';
  private _id?: string;

  /** `onToken` runs when the person solves the challenge. */
  constructor(host: HTMLElement, sitekey: string, language: string, onToken: () => void) {
    const el = document.createElement('div');
    el.slot = 'turnstile';
    host.append(el);
    const w = window as unknown as { turnstile?: Turnstile };
    const render = () => {
      this._id =
        w.turnstile?.render(el, {
          sitekey,
          // The worker refuses tokens solved for any other action (worker/lib/turnstile.ts).
          action: 'kyc-onboarding-link',
          language,
          callback: (token: string) => {
            this.token = token;
            onToken();
          },
          'expired-callback': () => {
            this.token = '';
          },
        }) ?? undefined;
    };
    if (w.turnstile) {
      render();
      return;
    }
    let script = document.querySelector<HTMLScriptElement>('script[data-kyc-turnstile]');
    if (!script) {
      script = document.createElement('script');
      script.src = SRC;
      script.async = true;
      script.dataset.kycTurnstile = '';
      document.head.append(script);
    }
    script.addEventListener('load', render, { once: true });
  }

  reset(): void {
    this.token = '';
    (window as unknown as { turnstile?: Turnstile }).turnstile?.reset(this._id);
  }
}

/** The challenge for this element (once): solving it clears the "complete the security check" message. */
export function attach(flow: FlowApi, language: string): void {
  const host = flow.host;
  flow.bot ??= new Bot(host, host.turnstileSitekey ?? '', language, () => {
    flow.botMissing = false;
    host.requestUpdate();
  });
}
