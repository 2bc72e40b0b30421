/**
 * Which partner a request works for, from its exact `Origin`: the registry
 * first, then the environment's partner (ALLOWED_ORIGINS and the KYC_*
 * settings), then the partners a deployment plugs in (`usePartnerSource`: the
 * local stack's demo partners on the worker's own origin, while DEMO is on).
 * An origin that is none of these belongs to no partner (403); production
 * plugs in none, so its own origin is no partner.
 */
import type { Env } from '../lib/env';
import { sandboxDefaults } from '../lib/sandbox-defaults';
import { normaliseOrigin } from '../lib/origins';
import { config, trustedOwnOrigin, type Config } from '../config';
import { ENVIRONMENT_PARTNER_ID, type Partner } from './partner';
import { registryPartnerById, registryPartnerByOrigin } from './registry';

/** The operator's own credentials (KYC_*): `/api/ruok` without a partner, and the environment's partner. */
export function operatorCredentials(cfg: Config): Pick<Partner, 'customerId' | 'childId' | 'apiKey'> {
  const sandbox = cfg.vendor.sandbox;
  return {
    customerId: cfg.operator.customerId ?? (sandbox ? (sandboxDefaults()?.customerId ?? '') : ''),
    childId: cfg.operator.childId,
    apiKey: cfg.operator.apiKey ?? (sandbox ? (sandboxDefaults()?.apiKey ?? '') : ''),
  };
}

/** The environment's flow, SMS, default country, Turnstile and webhook settings: its own partner's, and a plugged source's. */
export function environmentSettings(
  cfg: Config,
): Pick<Partner, 'flowId' | 'smsSenderName' | 'smsTemplateId' | 'defaultCountry' | 'turnstileSecret' | 'webhookUrl' | 'webhookSecret'> {
  return {
    flowId: cfg.operator.flowId,
    defaultCountry: cfg.defaultCountry,
    smsSenderName: cfg.operator.smsSenderName,
    smsTemplateId: cfg.operator.smsTemplateId,
    turnstileSecret: cfg.secrets.turnstileSecretKey,
    webhookUrl: cfg.webhookUrl,
    webhookSecret: cfg.secrets.webhookSecret,
  };
}

/** The environment's settings as a partner: today's single-partner behaviour. */
export function environmentPartner(env: Env, origins: string[]): Partner {
  return {
    id: ENVIRONMENT_PARTNER_ID,
    displayName: origins[0] ? new URL(origins[0]).host : 'kyc-onboard',
    source: 'environment',
    origins,
    ...operatorCredentials(config(env)),
    ...environmentSettings(config(env)),
  };
}

/**
 * Partners a deployment plugs in beside the registry and the environment's
 * (the local stack: worker/demo/demo-partners.ts, the demo partners while DEMO
 * is on); production has none.
 */
export interface PartnerSource {
  /** The partner whose page `origin` is. */
  byOrigin(env: Env, requestUrl: string, origin: string): Partner | undefined;
  /** Their ids. */
  ids: readonly string[];
  /** The partner named `id` (one of `ids`), while it is on. */
  byId(env: Env, requestUrl: string, id: string): Partner | undefined;
  /** Their `/v1` server keys (partnerId → `kyc_sk_…`), while they have some. */
  serverKeys?(env: Env): Promise<Record<string, string> | undefined>;
}

let plugged: PartnerSource | undefined;

/** Called once by the entry that has such partners (entry/local-app.ts). */
export function usePartnerSource(source: PartnerSource): void {
  plugged = source;
}

/** The plugged partner source, where this deployment has one (none in production). */
export const pluggedPartners = (): PartnerSource | undefined => plugged;

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
  const configured = config(env).allowedOrigins;
  if (configured.includes(origin)) return environmentPartner(env, configured);
  // Unless a plugged source claims it (the demo, while DEMO is on), the own origin is no partner
  //: a deployment's own pages cannot create vendor records or send texts.
  return plugged?.byOrigin(env, requestUrl, origin);
}

/** A partner named by id (`/api/ruok?partner=`): registry, environment or a plugged source. */
export async function partnerById(env: Env, requestUrl: string, id: string): Promise<Partner | undefined> {
  if (id === ENVIRONMENT_PARTNER_ID) {
    const cfg = config(env);
    const configured = cfg.allowedOrigins;
    // The request's own origin where the worker's is not configured: such a deployment is refused by the
    // configuration guard (naming PUBLIC_ORIGIN) before it serves anything.
    return environmentPartner(env, configured.length ? configured : [trustedOwnOrigin(cfg, requestUrl) ?? new URL(requestUrl).origin]);
  }
  if (plugged?.ids.includes(id)) return plugged.byId(env, requestUrl, id);
  return (await registryPartnerById(env, id)) ?? undefined;
}
