/**
 * Failed credentials per client: a wrong `/v1` server key, a wrong `/ops`
 * token. Each failure counts in RL_AUTH_FAIL under the client's address
 * grouped as every other client budget is (`ipKey`: IPv4 per address, IPv6
 * per /64 and per /48, so stepping through the addresses of one allocation
 * does not help). A client that went over is remembered by this isolate
 * until the window ends and refused before its credential is looked up, so
 * a guessing client costs no registry (KV) read once it is limited. The
 * binding's windows are aligned to the clock (limits.ts): so is the memory.
 */
import { ApiError } from './errors';
import { clientIp, enforce, ipKey } from './limits';

/** Where the credential was wrong: each place has its own count. */
export type CredentialScope = 'v1' | 'ops';

const PERIOD_MS = 60_000;
/** Clients remembered at once per isolate: a flood of /64s must not grow it without end. */
const MAX_REMEMBERED = 10_000;

/** client key → end of the window in which it went over (ms), this isolate's view. */
const limitedUntil = new Map<string, number>();

function clientKeys(scope: CredentialScope, headers: Headers): string[] {
  const ip = clientIp(headers);
  return [`${scope} ${ipKey(ip)}`, ...(ip.includes(':') ? [`${scope}48 ${ipKey(ip, 48)}`] : [])];
}

function remember(key: string, now: number): void {
  if (limitedUntil.size >= MAX_REMEMBERED) {
    for (const [k, until] of limitedUntil) if (until <= now) limitedUntil.delete(k);
    if (limitedUntil.size >= MAX_REMEMBERED) limitedUntil.delete(limitedUntil.keys().next().value!);
  }
  limitedUntil.set(key, Math.floor(now / PERIOD_MS) * PERIOD_MS + PERIOD_MS);
}

/** The 429 of a client that already went over in this window, before anything looks its credential up. */
export function refuseLimitedClient(scope: CredentialScope, headers: Headers, now = Date.now()): ApiError | undefined {
  for (const key of clientKeys(scope, headers)) {
    const until = limitedUntil.get(key);
    if (until === undefined) continue;
    if (until > now) return limitedAnswer(until - now);
    limitedUntil.delete(key);
  }
  return undefined;
}

/** One more failed credential from this client; throws the 429 (and remembers the client) when it is over. */
export async function countFailedAttempt(
  env: { RL_AUTH_FAIL?: RateLimit },
  scope: CredentialScope,
  headers: Headers,
  now = Date.now(),
): Promise<void> {
  // Every key counts (the /48 too, when the /64 is already over): a limited /48 holds all of its /64s.
  const over = await Promise.all(
    clientKeys(scope, headers).map((key) =>
      enforce(env.RL_AUTH_FAIL, key, 'failed sign-ins').then(
        () => undefined,
        (err: unknown) => {
          remember(key, now);
          return err instanceof Error ? err : new Error(String(err));
        },
      ),
    ),
  );
  const refusal = over.find((e) => e !== undefined);
  if (refusal !== undefined) throw refusal;
}

function limitedAnswer(msLeft: number): ApiError {
  return new ApiError(429, 'RATE_LIMITED', 'Too many failed sign-ins. Please wait a moment and try again.', [], {
    'Retry-After': String(Math.max(1, Math.ceil(msLeft / 1000))),
  });
}
