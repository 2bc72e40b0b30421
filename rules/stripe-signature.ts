/**
 * Stripe's webhook signature (`Stripe-Signature: t=<seconds>,v1=<hex>[,v1=…]`):
 * HMAC-SHA256 with the endpoint's signing secret (`whsec_…`, used as it is
 * written) over `<t>.<raw body>`, compared in constant time with every `v1`;
 * a `t` further than the tolerance (300 s) from our clock is refused, so an
 * old delivery replayed later does not verify. Stripe's published scheme,
 * no product code: the `stripe` adapter checks with it and the Stripe double
 * signs with it (test/vendors/stripe-signature.test.ts checks it against an
 * independent HMAC).
 */

/** Stripe's default tolerance, in seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

async function hmacHex(secret: string, payload: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(payload)));
  return [...mac].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The header value Stripe would send for `body` at `nowMs`. */
export async function signStripeEvent(secret: string, body: string, nowMs: number): Promise<string> {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${await hmacHex(secret, `${t}.${body}`)}`;
}

function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** Whether `header` signs `body` with `secret` at a time within the tolerance of `nowMs`. */
export async function verifyStripeSignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  nowMs: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): Promise<boolean> {
  if (!header || !secret) return false;
  let t: string | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const k = part.slice(0, at).trim();
    const v = part.slice(at + 1).trim();
    if (k === 't') t = v;
    else if (k === 'v1') v1.push(v);
  }
  if (!t || !/^\d{1,12}$/.test(t) || !v1.length) return false;
  if (Math.abs(nowMs / 1000 - Number(t)) > toleranceSeconds) return false;
  const expected = await hmacHex(secret, `${t}.${body}`);
  // Every candidate is compared, so the time taken does not say which one matched.
  let ok = false;
  for (const sig of v1) ok = sameText(sig.toLowerCase(), expected) || ok;
  return ok;
}
