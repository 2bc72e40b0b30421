/**
 * Which partner a request works for, from its exact `Origin`: the registry
 * first, then the environment's partner (ALLOWED_ORIGINS and the KYC_*
 * settings), then, while DEMO is on, the two demo partners on the worker's
 * own origin. An origin that is none of these belongs to no partner (403);
 * with DEMO off that includes the worker's own origin.
 */
import { DEFAULTS, demoEnabled, usesSandbox, type Env } from '../lib/env';
import { configuredOrigins, normaliseOrigin, ownOrigin } from '../lib/origins';
import { DEMO_PARTNERS } from '../demo/partners';
import { ENVIRONMENT_PARTNER_ID, type Partner } from './partner';
import { registryPartnerById, registryPartnerByOrigin } from './registry';

/** The operator's own credentials (KYC_*): `/api/ruok` without a partner, and the environment's partner. */
export function operatorCredentials(env: Env): Pick<Partner, 'customerId' | 'childId' | 'apiKey'> {
  const sandbox = usesSandbox(env);
  return {
    customerId: env.KYC_CUSTOMER_ID ?? (sandbox ? DEFAULTS.sandboxCustomerId : ''),
    childId: env.KYC_CUSTOMER_CHILD_ID || undefined,
    apiKey: env.KYC_API_KEY ?? (sandbox ? DEFAULTS.sandboxApiKey : ''),
  };
}

/** The environment's flow, SMS, Turnstile and webhook settings: its own partner's, and the demo partners'. */
function environmentSettings(
  env: Env,
): Pick<Partner, 'flowId' | 'smsSenderName' | 'smsTemplateId' | 'turnstileSecret' | 'webhookUrl' | 'webhookSecret'> {
  return {
    flowId: env.KYC_FLOW_ID || undefined,
    smsSenderName: env.KYC_SMS_SENDER_NAME || undefined,
    smsTemplateId: env.KYC_SMS_TEMPLATE_ID || undefined,
    turnstileSecret: env.TURNSTILE_SECRET_KEY?.trim() || undefined,
    webhookUrl: env.WEBHOOK_URL?.trim() || undefined,
    webhookSecret: env.WEBHOOK_SECRET?.trim() || undefined,
  };
}

/** The environment's settings as a partner: today's single-partner behaviour. */
export function environmentPartner(env: Env, origins: string[]): Partner {
  return {
    id: ENVIRONMENT_PARTNER_ID,
    displayName: origins[0] ? new URL(origins[0]).host : 'kyc-onboard',
    source: 'environment',
    origins,
    ...operatorCredentials(env),
    ...environmentSettings(env),
  };
}

/**
 * The demo partner for `origin`, while DEMO is on: the own origin, exactly
 * (same scheme and port), as 127.0.0.1 (partner A) or as localhost (B). A
 * deployed demo's own origin (neither host) is partner A.
 */
export function demoPartner(env: Env, requestUrl: string, origin: string): Partner | undefined {
  if (!demoEnabled(env)) return undefined;
  const own = new URL(ownOrigin(env, requestUrl));
  const o = new URL(origin);
  if (o.protocol !== own.protocol || o.port !== own.port) return undefined;
  const demo = DEMO_PARTNERS.find((d) => d.host === o.hostname) ?? (o.origin === own.origin ? DEMO_PARTNERS[0] : undefined);
  if (!demo) return undefined;
  return {
    id: demo.id,
    displayName: demo.displayName,
    source: 'demo',
    origins: [o.origin],
    customerId: env.KYC_CUSTOMER_ID ?? DEFAULTS.sandboxCustomerId,
    childId: demo.childId,
    apiKey: demo.apiKey,
    ...environmentSettings(env), // "they take the environment's flow, SMS and webhook settings"
  };
}

/**
 * The partner whose page `originHeader` is, or undefined. Throws when the
 * registry cannot be read or a partner's secrets do not open (the caller
 * answers 500 MISCONFIGURED: never a partial call with missing credentials).
 */
export async function resolvePartner(env: Env, requestUrl: string, originHeader: string | undefined | null): Promise<Partner | undefined> {
  const origin = originHeader ? normaliseOrigin(originHeader) : undefined;
  if (!origin) return undefined;
  const registered = await registryPartnerByOrigin(env, origin);
  if (registered) return registered;
  const configured = configuredOrigins(env);
  if (configured.includes(origin)) return environmentPartner(env, configured);
  // With DEMO off the own origin is no partner (issue 15): a deployment's own
  // pages cannot create vendor records or send texts, whatever ALLOWED_ORIGINS says.
  return demoPartner(env, requestUrl, origin);
}

/** A partner named by id (`/api/ruok?partner=`): registry, environment or demo. */
export async function partnerById(env: Env, requestUrl: string, id: string): Promise<Partner | undefined> {
  if (id === ENVIRONMENT_PARTNER_ID) {
    const configured = configuredOrigins(env);
    return environmentPartner(env, configured.length ? configured : [ownOrigin(env, requestUrl)]);
  }
  const demo = DEMO_PARTNERS.find((d) => d.id === id);
  if (demo) {
    if (!demoEnabled(env)) return undefined;
    const own = new URL(ownOrigin(env, requestUrl));
    return demoPartner(env, requestUrl, `${own.protocol}//${demo.host}${own.port ? `:${own.port}` : ''}`);
  }
  return (await registryPartnerById(env, id)) ?? undefined;
}
