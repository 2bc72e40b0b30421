/**
 * The sandbox's configuration: who may call it (SANDBOX_CREDENTIALS), its hard
 * search cap (SANDBOX_SEARCH_CAP) and how long its data lives
 * (SANDBOX_TTL_SECONDS). docs/sandbox.md documents every value.
 */
import * as z from 'zod/mini';

/** The sandbox's own settings (vars of the deployment that runs it); read here alone. */
export interface SandboxSettings {
  /** JSON: the sandbox's customers, children, keys and switches. */
  SANDBOX_CREDENTIALS?: string;
  /** The sandbox's hard cap on search results. Default 50. */
  SANDBOX_SEARCH_CAP?: string;
  /** How long sandbox data lives, in seconds. Default 86400. */
  SANDBOX_TTL_SECONDS?: string;
}
type Env = SandboxSettings;

export const DEFAULT_SEARCH_CAP = 50;
export const MAX_SEARCH_CAP = 1000;
export const DEFAULT_TTL_SECONDS = 86_400;
/** Lifetime of a hosted-flow link (`urlExpiry`). */
export const LINK_TTL_SECONDS = 30 * 60;
/** The outbox forgets a message after this long (a public demo shows it). */
export const OUTBOX_TTL_SECONDS = 15 * 60;
/** Profiles every customer knows unless its credentials list its own. */
export const DEFAULT_PROFILES = ['default', 'safe_harbour', 'international'];

const nonEmpty = () => z.string().check(z.minLength(1));
const keys = z.union([nonEmpty(), z.array(nonEmpty()).check(z.minLength(1))]);

const ChildConfig = z.object({
  childId: nonEmpty(),
  apiKey: keys,
});

const CustomerConfig = z.object({
  customerId: nonEmpty(),
  /** One key, or several while a key rotates. */
  apiKey: keys,
  /** `?child=true` search across the children (the spec: enabled by administrators). */
  childSearch: z._default(z.boolean(), false),
  /** Names `entity.entityProfile` may take. */
  profiles: z.optional(z.array(nonEmpty())),
  children: z._default(z.array(ChildConfig), []),
});

export const SandboxCredentials = z.object({ customers: z.array(CustomerConfig).check(z.minLength(1)) });
export type SandboxCredentials = z.infer<typeof SandboxCredentials>;
export type CustomerConfig = z.infer<typeof CustomerConfig>;

export const DEFAULT_CREDENTIALS: SandboxCredentials = {
  customers: [
    {
      customerId: 'demo-customer',
      apiKey: 'sandbox-key',
      childSearch: true,
      children: [
        { childId: 'demo-child-a', apiKey: 'sandbox-key-a' },
        { childId: 'demo-child-b', apiKey: 'sandbox-key-b' },
      ],
    },
  ],
};

const parsedCache = new Map<string, SandboxCredentials | null>();

/** SANDBOX_CREDENTIALS is set: callers other than loopback ones may use the vendor API. */
export function hasOwnCredentials(env: Pick<Env, 'SANDBOX_CREDENTIALS'>): boolean {
  return Boolean(env.SANDBOX_CREDENTIALS?.trim());
}

/** The configured credentials; `null` when SANDBOX_CREDENTIALS is set but not valid. */
export function credentials(env: Pick<Env, 'SANDBOX_CREDENTIALS'>): SandboxCredentials | null {
  const raw = env.SANDBOX_CREDENTIALS?.trim();
  if (!raw) return DEFAULT_CREDENTIALS;
  if (parsedCache.has(raw)) return parsedCache.get(raw) ?? null;
  let value: SandboxCredentials | null;
  try {
    const parsed = SandboxCredentials.safeParse(JSON.parse(raw));
    value = parsed.success ? parsed.data : null;
  } catch {
    value = null;
  }
  if (parsedCache.size > 16) parsedCache.clear();
  parsedCache.set(raw, value);
  return value;
}

function positiveInt(value: string | undefined, fallback: number, max: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
}

export function searchCap(env: Pick<Env, 'SANDBOX_SEARCH_CAP'>): number {
  return positiveInt(env.SANDBOX_SEARCH_CAP, DEFAULT_SEARCH_CAP, MAX_SEARCH_CAP);
}

export function ttlSeconds(env: Pick<Env, 'SANDBOX_TTL_SECONDS'>): number {
  return positiveInt(env.SANDBOX_TTL_SECONDS, DEFAULT_TTL_SECONDS, 30 * 86_400);
}

export function keyList(k: string | string[]): string[] {
  return Array.isArray(k) ? k : [k];
}

/** Compares without an early exit on the first differing character. */
export function sameSecret(a: string, b: string): boolean {
  const enc = new TextEncoder();
  const x = enc.encode(a);
  const y = enc.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
