/**
 * The configuration guard: before any /api (and /v1) route runs, the
 * worker's settings must make a deployment that can do its job safely;
 * otherwise the answer is `500 MISCONFIGURED`, its issues naming each setting
 * (`issueLocation` = the setting's name, never its value) and the request's
 * log line listing them (`missing`).
 *
 * The sandbox never passes for production: it is the vendor (KYC_BASE_URL
 * unset or `sandbox`) only where the deployment composed one (the local
 * stack, entry/local-app.ts) and, deployed (a PUBLIC_ORIGIN or a request host
 * that is not loopback), only with DEMO=on set explicitly.
 */
import { createMiddleware } from 'hono/factory';
import { configuredSessionSecret } from '../lib/session-secret';
import { bindingIfAny, type Env } from '../lib/env';
import type { AppEnv } from '../app-env';
import { isDeployed, trustedOwnOrigin, type Config } from '../config';
import { defaultCountryProblem } from '../lib/country';
import { MIN_AGE_PROBLEM, minAgeOf } from '../lib/min-age';
import { ApiError, type Issue } from '../lib/errors';
import { isLoopbackHost } from '../lib/origins';
import { configuredKeyJwks } from '../verifications/signing-keys';
import type { Ports } from '../ports';
import { webhookSettingsProblems } from './webhook-settings';
import { indexProblems } from '../lib/d1-schema';
import { isDouble, vendorSettingsProblems } from '../vendors/settings';

const NOT_SET = 'is not set';

/** The settings that keep this request from being served, each with what is wrong; empty when none. */
export function misconfiguration(env: Env, ports: Pick<Ports, 'inProcessVendor'>, cfg: Config, requestUrl: string): Issue[] {
  const issues: Issue[] = [];
  const add = (issueLocation: string, issue: string) => issues.push({ issue, issueLocation });
  const idv = cfg.vendors.order.includes('idv');
  if (idv && cfg.vendor.sandbox) {
    if (!ports.inProcessVendor) add('KYC_BASE_URL', `${NOT_SET}: this deployment has no sandbox; set the vendor's base URL`);
    else if (isDeployed(cfg, requestUrl) && !cfg.demoExplicit)
      add('KYC_BASE_URL', `${NOT_SET}: a deployed worker uses the sandbox only with DEMO=on set explicitly`);
  } else if (idv) {
    // https, or the vendor's key would travel in clear: plain http only to a loopback host (a vendor double on this machine).
    let baseOk: boolean;
    try {
      const base = new URL(cfg.vendor.baseUrl ?? '');
      baseOk = base.protocol === 'https:' || (base.protocol === 'http:' && isLoopbackHost(base.hostname));
    } catch {
      baseOk = false;
    }
    if (!baseOk) add('KYC_BASE_URL', 'must be the vendor\'s https base URL (http only to a loopback host), or "sandbox"');
    if (!cfg.operator.apiKey) add('KYC_API_KEY', NOT_SET);
    if (!cfg.operator.customerId) add('KYC_CUSTOMER_ID', NOT_SET);
  }
  // A real vendor (any vendor but a double) needs the secrets a double lets the worker derive.
  if (cfg.vendors.order.some((v) => !isDouble(cfg, v))) {
    if (!configuredSessionSecret(cfg)) add('SESSION_SECRET', `${NOT_SET} (required with a real vendor)`);
    if (!cfg.publicOrigin) add('PUBLIC_ORIGIN', `${NOT_SET} (required with a real vendor)`);
    if (!cfg.secrets.resultSigningKeys) add('RESULT_SIGNING_KEYS', `${NOT_SET} (required with a real vendor)`);
  }
  issues.push(
    ...vendorSettingsProblems(cfg, Boolean(ports.inProcessVendor), isDeployed(cfg, requestUrl), Boolean(bindingIfAny(env, 'PARTNERS'))),
  );
  // Tokens need an issuer: PUBLIC_ORIGIN, or the request's origin on loopback.
  if (!issues.some((i) => i.issueLocation === 'PUBLIC_ORIGIN') && !trustedOwnOrigin(cfg, requestUrl))
    add('PUBLIC_ORIGIN', `${NOT_SET} (required off loopback hosts)`);
  if (cfg.secrets.resultSigningKeys && !configuredKeyJwks(env))
    add('RESULT_SIGNING_KEYS', 'must be a JSON array of private P-256 JWKs with kid');
  const countryProblem = cfg.defaultCountry && defaultCountryProblem(cfg.defaultCountry);
  if (countryProblem) add('DEFAULT_COUNTRY', countryProblem);
  if (cfg.minAge !== undefined && minAgeOf(cfg.minAge) === undefined) add('MIN_AGE', MIN_AGE_PROBLEM);
  issues.push(...webhookSettingsProblems(env, trustedOwnOrigin(cfg, requestUrl) ?? requestUrl));
  issues.push(...cfg.invalidSettings);
  return issues;
}

/** The error a misconfigured deployment answers with. */
export function misconfigured(issues: Issue[]): ApiError {
  const names = issues.map((i) => i.issueLocation).join(', ');
  return new ApiError(500, 'MISCONFIGURED', `The service is misconfigured (${names}). The operator has to fix its settings.`, issues);
}

/** Mount before the routes of /api and /v1: `app.use('/v1/*', configGuard)`. The index (D1) is checked too: every route may write it. */
export const configGuard = createMiddleware<AppEnv>(async (c, next) => {
  const issues = [...misconfiguration(c.env, c.var.ports, c.var.config, c.req.url), ...(await indexProblems(c.env))];
  if (issues.length) {
    c.set(
      'missing',
      issues.map((i) => i.issueLocation),
    );
    throw misconfigured(issues);
  }
  await next();
});
