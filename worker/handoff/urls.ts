/**
 * Where a link sends people: back from the hosted flow (`kyc_return`), and on
 * a handoff the worker's own single-use pages, carrying the widget's language
 * as `l` (see page-strings.ts).
 */
import { pageLang } from './page-strings';

/** The hosted flow sends people back here; the widget (or the handoff page) recognises the parameter. */
export function redirectUrl(returnUrl: string, outcome: 'success' | 'error'): string {
  const u = new URL(returnUrl);
  u.searchParams.set('kyc_return', outcome);
  return u.toString();
}

/** Where the hosted flow sends people back from a link returning to `returnUrl`, by how the flow ended. */
export function returnUrls(returnUrl: string): { success: string; error: string } {
  return { success: redirectUrl(returnUrl, 'success'), error: redirectUrl(returnUrl, 'error') };
}

/** The worker's handoff pages of one verification, in the widget's language (`lang`, when it sent one). */
export function handoffUrls(own: string, verificationId: string, lang: string | undefined) {
  const l = lang ? `&l=${pageLang(lang, undefined)}` : '';
  return {
    /** The single-use link for the phone (a QR code, a copied link). */
    open: (token: string) => `${own}/handoff/${verificationId}?t=${token}${l}`,
    /** Where the hosted flow ends on the phone. */
    back: (secret: string) => `${own}/handoff/${verificationId}/return?r=${secret}${l}`,
  };
}
