/**
 * The one cookie the worker sets (the handoff return page's browser key),
 * written and read as hono/cookie does for these options (its serialisation
 * and first-match parsing), in a few lines instead of its 0.8 KB gzip. Names
 * and values here are ours (`kyc_claim_<ulid>`, base64url): nothing to
 * escape.
 */
import type { Context } from 'hono';

export interface CookieOptions {
  path: string;
  maxAge: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax';
}

/** `name=value; Max-Age=…; Path=…; HttpOnly; Secure; SameSite=…` (hono's attribute order). */
export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  return `${name}=${value}; Max-Age=${o.maxAge | 0}; Path=${o.path}${o.httpOnly ? '; HttpOnly' : ''}${o.secure ? '; Secure' : ''}; SameSite=${o.sameSite}`;
}

export function setCookie(c: Context, name: string, value: string, o: CookieOptions): void {
  c.header('Set-Cookie', serializeCookie(name, value, o), { append: true });
}

/** The first cookie called `name` in the request's Cookie header (quotes removed), or undefined. */
export function getCookie(c: Context, name: string): string | undefined {
  for (const pair of (c.req.header('Cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at === -1 || pair.slice(0, at).trim() !== name) continue;
    let value = pair.slice(at + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!/^[ !#-:<-[\]-~]*$/.test(value)) continue;
    // Each run of %XX escapes decoded on its own, as hono does (a bad run stays as written).
    return value.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
  return undefined;
}
