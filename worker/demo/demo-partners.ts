/**
 * The demo partners as the worker resolves them: the partner source the local
 * stack plugs in (the `partnerSource` port, entry/local-app.ts). While DEMO is
 * on, the own origin, exactly (same scheme and port), as 127.0.0.1 (partner
 * A) or as localhost (B). A deployed demo's own origin (neither host) is
 * partner A. They take the environment's flow, SMS and webhook settings.
 */
import type { Env } from '../lib/env';
import { config, trustedOwnOrigin } from '../config';
import type { Partner } from '../partners/partner';
import { environmentSettings } from '../partners/resolve';
import type { PartnerSource, SandboxDefaults } from '../ports';
import { devSecrets } from './dev-secrets';
import { DEMO_PARTNERS } from './partners';
import { demoChoice } from './vendor-switch';

/** The demo partner for `origin`, while DEMO is on. */
export function demoPartner(env: Env, defaults: SandboxDefaults, requestUrl: string, origin: string): Partner | undefined {
  const cfg = config(env);
  if (!cfg.demo) return undefined;
  // The request's own origin where the worker's is not configured: such a deployment is refused by the
  // configuration guard (naming PUBLIC_ORIGIN) before it serves anything.
  const own = new URL(trustedOwnOrigin(cfg, requestUrl) ?? new URL(requestUrl).origin);
  const o = new URL(origin);
  if (o.protocol !== own.protocol || o.port !== own.port) return undefined;
  const demo = DEMO_PARTNERS.find((d) => d.host === o.hostname) ?? (o.origin === own.origin ? DEMO_PARTNERS[0] : undefined);
  if (!demo) return undefined;
  return {
    id: demo.id,
    displayName: demo.displayName,
    source: 'plugged',
    origins: [o.origin],
    customerId: cfg.operator.customerId ?? defaults.customerId,
    childId: demo.childId,
    apiKey: demo.apiKey,
    ...environmentSettings(cfg), // "they take the environment's flow, SMS and webhook settings"
    // Their vendors as the demo switched them; else the deployment's (KYC_VENDOR, VENDOR_FAILOVER).
    ...demoChoice(demo.id),
  };
}

/** The demo partners' development keys (sandbox and DEMO only): partnerId → key. */
export async function demoServerKeys(env: Env): Promise<Record<string, string> | undefined> {
  if (!config(env).vendor.sandbox || !config(env).demo) return undefined;
  return (await devSecrets(env)).demoServerKeys;
}

/** The demo partners as a partner source; their customer is the sandbox's default one unless KYC_CUSTOMER_ID says otherwise. */
export const demoPartnerSource = (defaults: SandboxDefaults): PartnerSource => ({
  serverKeys: demoServerKeys,
  byOrigin: (env, requestUrl, origin) => demoPartner(env, defaults, requestUrl, origin),
  ids: DEMO_PARTNERS.map((d) => d.id),
  byId(env, requestUrl, id) {
    const demo = DEMO_PARTNERS.find((d) => d.id === id);
    if (!demo || !config(env).demo) return undefined;
    const own = new URL(trustedOwnOrigin(config(env), requestUrl) ?? new URL(requestUrl).origin);
    return demoPartner(env, defaults, requestUrl, `${own.protocol}//${demo.host}${own.port ? `:${own.port}` : ''}`);
  },
});
