/**
 * The sales demo's vendor switch, local stack only (docs/demo.md "Vendors and
 * failover"): which vendors each demo partner uses (idv, stripe, or idv then
 * stripe with failover), and which of the doubles is down. A double taken
 * down fails as a real vendor's outage does: `unreachable` refuses the
 * connection at once, `timeout` answers nothing until the worker gives up
 * (KYC_TIMEOUT_MS). It sits in front of the doubles on the in-process path
 * (entry/local-app.ts): the worker's own calls to the vendor fail, the
 * hosted-flow pages stay.
 *
 * In this isolate's memory, on purpose: a demo knob, not a setting; a restart
 * (or another isolate) is back to the configuration's vendors, all up.
 * Production does not import this file.
 */
import type { FailoverMode } from '../partners/partner';
import type { VendorId } from '../vendors/adapter';

export interface DemoVendorChoice {
  vendors: VendorId[];
  failover: FailoverMode;
}

export type Outage = 'unreachable' | 'timeout';

const choices = new Map<string, DemoVendorChoice>();
const outages = new Map<VendorId, Outage>();

/** A demo partner's vendors as switched, or undefined (the deployment's KYC_VENDOR and VENDOR_FAILOVER). */
export const demoChoice = (partnerId: string): DemoVendorChoice | undefined => choices.get(partnerId);

export function setDemoChoice(partnerId: string, choice: DemoVendorChoice | undefined): void {
  if (choice) choices.set(partnerId, choice);
  else choices.delete(partnerId);
}

export const outageOf = (vendor: VendorId): Outage | undefined => outages.get(vendor);

export function setOutage(vendor: VendorId, outage: Outage | undefined): void {
  if (outage) outages.set(vendor, outage);
  else outages.delete(vendor);
}

/** Everything back as configured: every vendor up, no switch (tests, the demo's "reset"). */
export function resetDemoVendors(): void {
  choices.clear();
  outages.clear();
}

/** Which double a request on the in-process path is for: the Stripe double's paths, else the idv sandbox. */
export const doubleOf = (request: Request): VendorId => (new URL(request.url).pathname.startsWith('/sandbox/stripe/') ? 'stripe' : 'idv');

/** The longest a `timeout` outage holds a request whose caller never gives up. */
const HANG_CAP_MS = 60_000;

/**
 * `fetch` into the doubles with the outages applied: a vendor down is a
 * refused connection, or no answer until the caller's signal aborts.
 */
export function withOutages<A extends unknown[]>(
  fetch: (request: Request, ...rest: A) => Promise<Response>,
): (request: Request, ...rest: A) => Promise<Response> {
  return async (request, ...rest) => {
    const outage = outageOf(doubleOf(request));
    if (outage === 'unreachable') throw new TypeError('connection refused (the demo took this vendor down)');
    if (outage === 'timeout') {
      await new Promise<never>((_, reject) => {
        const timer = setTimeout(() => reject(new TypeError('no answer (the demo took this vendor down)')), HANG_CAP_MS);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new TypeError('aborted'));
        });
      });
    }
    return fetch(request, ...rest);
  };
}
