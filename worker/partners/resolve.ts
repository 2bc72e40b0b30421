/**
 * Which partner a request works for, from its exact `Origin`: the registry
 * first, then the environment's partner (ALLOWED_ORIGINS and the KYC_*
 * settings), then the partners a deployment plugs in (the `partnerSource`
 * port: the local stack's demo partners on the worker's own origin, while
 * DEMO is on).
 * An origin that is none of these belongs to no partner (403); production
 * plugs in none, so its own origin is no partner.
 */
import type { Env } from '../lib/env';
import type { Ports, SandboxDefaults } from '../ports';
import { normaliseOrigin } from '../lib/origins';
import { config, trustedOwnOrigin, type Config } from '../config';
import { ENVIRONMENT_PARTNER_ID, type Partner } from './partner';
import { registryPartnerById, registryPartnerByOrigin } from './registry';
import { systemClock } from '../lib/clock';
import { minAgeOf, minAgeSetting } from '../lib/min-age';

/** The operator's own credentials (KYC_*): `/api/ruok` without a partner, and the environment's partner. */
export function operatorCredentials(
  cfg: Config,
  defaults: SandboxDefaults | undefined,
): Pick<Partner, 'customerId' | 'childId' | 'apiKey'> {
  const sandbox = cfg.vendor.sandbox;
  return {
    customerId: cfg.operator.customerId ?? (sandbox ? (defaults?.customerId ?? '') : ''),
    childId: cfg.operator.childId,
    apiKey: cfg.operator.apiKey ?? (sandbox ? (defaults?.apiKey ?? '') : ''),
  };
}

/** The environment's flow, SMS, default country, Turnstile and webhook settings: its own partner's, and a plugged source's. */
export function environmentSettings(
  cfg: Config,
): Pick<
  Partner,
  'flowId' | 'smsSenderName' | 'smsTemplateId' | 'defaultCountry' | 'minAge' | 'turnstileSecret' | 'webhookUrl' | 'webhookSecret'
> {
  return {
    flowId: cfg.operator.flowId,
    defaultCountry: cfg.defaultCountry,
    ...minAgeSetting(minAgeOf(cfg.minAge)),
    smsSenderName: cfg.operator.smsSenderName,
    smsTemplateId: cfg.operator.smsTemplateId,
    turnstileSecret: cfg.secrets.turnstileSecretKey,
    webhookUrl: cfg.webhookUrl,
    webhookSecret: cfg.secrets.webhookSecret,
  };
}

/** The environment's settings as a partner: today's single-partner behaviour. */
export function environmentPartner(env: Env, ports: Pick<Ports, 'sandboxDefaults'>, origins: string[]): Partner {
  return {
    id: ENVIRONMENT_PARTNER_ID,
    displayName: origins[0] ? new URL(origins[0]).host : 'kyc-onboard',
    source: 'environment',
    origins,
    ...operatorCredentials(config(env), ports.sandboxDefaults),
    ...environmentSettings(config(env)),
  };
}

/**
 * The partner whose page `originHeader` is, or undefined. Throws when the
 * registry cannot be read or a partner's secrets do not open (the caller
 * answers 500 MISCONFIGURED: never a partial call with missing credentials).
 */
export async function resolvePartner(
  env: Env,
  ports: Ports,
  requestUrl: string,
  originHeader: string | undefined | null,
): Promise<Partner | undefined> {
  const origin = originHeader ? normaliseOrigin(originHeader) : undefined;
  if (!origin) return undefined;
  const registered = await registryPartnerByOrigin(env, origin, systemClock(), ports.sandboxDefaults);
  if (registered) return registered;
  const configured = config(env).allowedOrigins;
  if (configured.includes(origin)) return environmentPartner(env, ports, configured);
  // Unless a plugged source claims it (the demo, while DEMO is on), the own origin is no partner
  //: a deployment's own pages cannot create vendor records or send texts.
  return ports.partnerSource?.byOrigin(env, requestUrl, origin);
}

/** A partner named by id (`/api/ruok?partner=`): registry, environment or a plugged source. */
export async function partnerById(env: Env, ports: Ports, requestUrl: string, id: string): Promise<Partner | undefined> {
  if (id === ENVIRONMENT_PARTNER_ID) {
    const cfg = config(env);
    const configured = cfg.allowedOrigins;
    // The request's own origin where the worker's is not configured: such a deployment is refused by the
    // configuration guard (naming PUBLIC_ORIGIN) before it serves anything.
    return environmentPartner(
      env,
      ports,
      configured.length ? configured : [trustedOwnOrigin(cfg, requestUrl) ?? new URL(requestUrl).origin],
    );
  }
  const plugged = ports.partnerSource;
  if (plugged?.ids.includes(id)) return plugged.byId(env, requestUrl, id);
  return (await registryPartnerById(env, id, systemClock(), ports.sandboxDefaults)) ?? undefined;
}
