/** A link is out (to the hosted flow, a phone, a text message): what the views show, what a reload needs, and `kyc-link`. */
import { failure, type LinkAnswer } from '../api.js';
import type { Stored } from '../return-session.js';
import type { RunContext } from './context.js';

/** Only http(s) links may be followed or rendered. */
export function safeUrl(u: string): string {
  const url = new URL(u, location.href);
  if (!/^https?:$/.test(url.protocol)) throw failure('BAD_ANSWER', 200, false);
  return url.href;
}

/** Hold the link of `answer`: on the flow, in this tab's storage (`keep`, with the session), and in `kyc-link`. */
export function holdLink(r: RunContext, answer: LinkAnswer, url: string, keep: Omit<Stored, 'session' | 'urlExpiry'>): void {
  const flow = r.flow;
  flow.link = { urlExpiry: answer.localExpiry, ...(url ? { url } : {}) };
  flow.qr = answer.qr;
  flow.copied = flow.phoneOpened = flow.linkExpired = false;
  // The names of what the vendor's hosted flow appends to the return URL: read back after the page comes back.
  const returnKeys = answer.returnKeys?.length ? { returnKeys: answer.returnKeys } : {};
  r.d.writeStored({ session: answer.session, urlExpiry: answer.localExpiry, ...returnKeys, ...keep });
  r.d.emit(r.host, 'kyc-link', {
    url,
    urlExpiry: answer.urlExpiry,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- parsed JSON: a renewal's answer may leave it out
    smsSent: !!answer.smsSent,
    verificationId: answer.verificationId,
  });
}
