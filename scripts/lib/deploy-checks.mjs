// What `npm run deploy` (scripts/deploy.mjs) refuses before anything is built
// or uploaded, each problem naming its setting: a production worker missing
// one of these would answer 500 MISCONFIGURED (or sign with nothing, or write
// to no database) instead of failing here, where the operator is looking.
// Pure functions of the configuration wrangler reads and the shell's
// environment, so test/worker/deploy-script.test.ts checks each rule directly.

import { webhookUrlProblem as webhookRule } from '../../rules/webhook-url.ts';

/** `npx wrangler d1 create` has not been run: wrangler.toml still holds the all-zeros id. */
const PLACEHOLDER_D1_ID = /^[0-]+$/;

/** Secrets a production worker with a real vendor cannot run without (docs/configuration.md). */
export const LIVE_SECRETS = ['KYC_API_KEY', 'KYC_CUSTOMER_ID', 'SESSION_SECRET', 'RESULT_SIGNING_KEYS'];

/** The wrangler environment `npm run deploy` deploys. */
export const DEPLOY_ENV = 'production';

/** Why `value` is no production vendor base URL, or undefined when it is one. */
export function baseUrlProblem(value) {
  const v = value?.trim();
  if (!v) return 'is not set';
  if (v === 'sandbox') return 'is "sandbox": production has no sandbox';
  let url;
  try {
    url = new URL(v);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  return undefined;
}

/** Why `value` is no public origin for a deployed worker, or undefined when it is one. */
export function publicOriginProblem(value) {
  const v = value?.trim();
  if (!v) return "is not set (the worker's public https origin, e.g. https://kyc.example.com: the issuer of result tokens)";
  let url;
  try {
    url = new URL(v);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https origin';
  if (url.pathname !== '/' || url.search || url.hash || v.replace(/\/$/, '') !== url.origin)
    return `must be an origin only (${url.origin})`;
  return undefined;
}

/** Why the D1 binding `DB` of the deployed configuration is not a real database, or undefined. */
export function d1Problem(config) {
  const db = (config.d1_databases ?? []).find((d) => d.binding === 'DB');
  if (!db) return 'D1 binding DB is missing from [env.production] (the operator console and the verification index need it)';
  const id = db.database_id?.trim();
  if (!id || PLACEHOLDER_D1_ID.test(id))
    return 'D1 database_id of DB is the placeholder in wrangler.toml: run `npx wrangler d1 create kyc-onboard` and put the id it prints in [[env.production.d1_databases]]';
  return undefined;
}

/** Why RESULT_SIGNING_KEYS (as given in the shell) cannot sign production's tokens, or undefined. */
export function signingKeysProblem(raw) {
  let keys;
  try {
    keys = JSON.parse(raw);
  } catch {
    return 'must be a JSON array of private P-256 JWKs with kid (npm run keygen)';
  }
  if (!Array.isArray(keys) || keys.length === 0) return 'must be a JSON array of private P-256 JWKs with kid (npm run keygen)';
  for (const k of keys) {
    if (
      !k ||
      typeof k !== 'object' ||
      k.kty !== 'EC' ||
      k.crv !== 'P-256' ||
      typeof k.d !== 'string' ||
      typeof k.kid !== 'string' ||
      !k.kid
    )
      return 'must be a JSON array of private P-256 JWKs with kid (npm run keygen)';
    // Partners refuse `sandbox-` keys (docs/trusted-outcomes.md): production must never sign with one.
    if (k.kid.startsWith('sandbox-')) return 'holds a development key (kid "sandbox-…"): make production keys with npm run keygen';
  }
  return undefined;
}

/** Why `value` is no comma list of https page origins (ALLOWED_ORIGINS), or undefined. */
export function originsProblem(value) {
  const list = (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  if (!list.length) return 'is empty';
  for (const o of list) {
    let url;
    try {
      url = new URL(o);
    } catch {
      return `holds ${JSON.stringify(o)}, which is not an origin`;
    }
    if (url.protocol !== 'https:') return `holds ${JSON.stringify(o)}: partner pages are https`;
    if (o.replace(/\/$/, '') !== url.origin) return `holds ${JSON.stringify(o)}: origins only (${url.origin}), no path`;
  }
  return undefined;
}

/**
 * Why `value` is no webhook endpoint for a deployed worker, or undefined: the
 * worker's own rule (rules/webhook-url.ts, read through tsx: `npm run deploy`
 * and `npm run setup` load it), as a deployed worker applies it.
 */
export function webhookUrlProblem(value) {
  return webhookRule(value?.trim() ?? '', false);
}

/** Why `value` is no WEBHOOK_SECRET (`whsec_` + the base64 of at least 16 bytes), or undefined. */
export function webhookSecretProblem(value) {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value?.trim() ?? '');
  if (!m || Buffer.from(m[1], 'base64').length < 16)
    return 'must be whsec_ + the base64 of at least 16 bytes (npm run -s keygen -- --webhook-secret)';
  return undefined;
}

/** Why PARTNER_SERVER_KEYS (as given in the shell) cannot serve a live deployment, or undefined. */
export function serverKeysProblem(value) {
  const keys = (value ?? '').split(',').map((k) => k.trim());
  if (keys.length > 2 || keys.some((k) => !k)) return 'must be one key, or two during a rotation, comma-separated';
  for (const k of keys) {
    if (/^kyc_sk_test_/.test(k)) return 'holds a test key (kyc_sk_test_…): a live deployment refuses it; make a kyc_sk_live_ key';
    if (!/^kyc_sk_(?:live_)?[A-Za-z0-9_-]{43}$/.test(k)) return 'must be kyc_sk_live_ + 43 base64url characters';
  }
  return undefined;
}

/** The secrets a deployment may have; each given in the shell goes up with the deploy, the same way. */
export const SECRETS = [
  ...LIVE_SECRETS,
  'KYC_CUSTOMER_CHILD_ID',
  'PARTNER_SERVER_KEYS',
  'WEBHOOK_SECRET',
  'PARTNER_SEALING_KEY',
  'TURNSTILE_SECRET_KEY',
  'OPS_TOKEN',
];

/** The vars a deploy takes from the shell (passed on as `--var`), beside those in wrangler.toml. */
export const SHELL_VARS = ['KYC_BASE_URL', 'PUBLIC_ORIGIN', 'ALLOWED_ORIGINS', 'WEBHOOK_URL'];

/** The queue bindings a production worker produces to; each names a queue that must exist on Cloudflare. */
export const QUEUE_BINDINGS = ['WEBHOOK_QUEUE', 'WEBHOOK_DLQ', 'EVENTS_QUEUE'];

/** What to run for everything wrangler.toml or Cloudflare lacks. */
const SETUP = `npm run setup -- --env ${DEPLOY_ENV}`;

/** The queues [env.production] names (producers, consumers, dead-letter queues). */
export function queuesOf(config) {
  const q = config.queues ?? {};
  return [
    ...new Set([...(q.producers ?? []).map((p) => p.queue), ...(q.consumers ?? []).flatMap((c) => [c.queue, c.dead_letter_queue])]),
  ].filter(Boolean);
}

/**
 * Every reason not to deploy, one line each naming the setting and what to run.
 *   config           what wrangler reads for [env.production] (unstable_readConfig)
 *   env              the shell's environment (vars and secrets given there)
 *   remoteSecrets    names of the secrets already set on the deployed worker (`wrangler secret list`), or undefined when unknown
 *   registry         {partners, origins}: how many registry partners and origins the PARTNERS namespace on Cloudflare holds, or undefined when unknown
 *   missingQueues    the queues named in wrangler.toml that Cloudflare does not have, or undefined when unknown
 */
export function deployProblems({ config, env, remoteSecrets, registry, missingQueues }) {
  const problems = [];
  const vars = config.vars ?? {};
  const setting = (name) => {
    const v = env[name]?.trim() ? env[name] : vars[name];
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  };
  const unlisted = remoteSecrets
    ? ''
    : ' (the secrets already on Cloudflare were not listed: no CLOUDFLARE_API_TOKEN for a dry run; give them in the shell)';
  /** A secret is set when the shell gives it or Cloudflare has it: the same rule for every secret. */
  const secret = (name) => !!(env[name]?.trim() || remoteSecrets?.has(name));
  const base = baseUrlProblem(setting('KYC_BASE_URL'));
  if (base) problems.push(`KYC_BASE_URL ${base}: \`${SETUP}\` writes it into [env.${DEPLOY_ENV}.vars] (or give it in the shell).`);
  const origin = publicOriginProblem(setting('PUBLIC_ORIGIN'));
  if (origin) problems.push(`PUBLIC_ORIGIN ${origin}: \`${SETUP}\` writes it into [env.${DEPLOY_ENV}.vars] (or give it in the shell).`);
  const d1 = d1Problem(config);
  if (d1) problems.push(`${d1} (\`${SETUP}\` does both).`);
  for (const name of LIVE_SECRETS) {
    if (!secret(name))
      problems.push(
        `${name} is not set: \`${SETUP}\` sets it (or \`npx wrangler secret put ${name} --env ${DEPLOY_ENV}\`, or give it in the shell)${unlisted}.`,
      );
  }
  if (env.RESULT_SIGNING_KEYS?.trim()) {
    const keys = signingKeysProblem(env.RESULT_SIGNING_KEYS);
    if (keys) problems.push(`RESULT_SIGNING_KEYS ${keys}.`);
  }

  // The partners: at least one, with an origin and a server key; else every page gets 403 and /v1 401.
  const origins = setting('ALLOWED_ORIGINS');
  const hasServerKeys = secret('PARTNER_SERVER_KEYS');
  if (origins) {
    const bad = originsProblem(origins);
    if (bad) problems.push(`ALLOWED_ORIGINS ${bad}.`);
    if (!hasServerKeys)
      problems.push(
        `PARTNER_SERVER_KEYS is not set: the environment partner (ALLOWED_ORIGINS) has no server key, so its server cannot use /v1: \`${SETUP}\` makes one (or \`npx wrangler secret put PARTNER_SERVER_KEYS --env ${DEPLOY_ENV}\`)${unlisted}.`,
      );
  } else if (hasServerKeys) {
    problems.push(
      'PARTNER_SERVER_KEYS is set but ALLOWED_ORIGINS is not: the environment partner has no page origin (every page would get 403); set ALLOWED_ORIGINS.',
    );
  }
  if (env.PARTNER_SERVER_KEYS?.trim()) {
    const keys = serverKeysProblem(env.PARTNER_SERVER_KEYS);
    if (keys) problems.push(`PARTNER_SERVER_KEYS ${keys}.`);
  }
  const registryPartners = registry && registry.partners > 0 && registry.origins > 0;
  if (!origins && !hasServerKeys && !registryPartners)
    problems.push(
      registry
        ? `no partner: ALLOWED_ORIGINS is not set and the registry holds no partner with an origin, so every page would get 403 and /v1 401: set ALLOWED_ORIGINS with \`${SETUP}\` (it makes the server key too), or \`npm run partners -- add … --remote\`.`
        : `no partner known: ALLOWED_ORIGINS is not set, and the registry on Cloudflare was not read (no CLOUDFLARE_API_TOKEN): set ALLOWED_ORIGINS with \`${SETUP}\`, or give CLOUDFLARE_API_TOKEN so the rehearsal can count the partners \`npm run partners -- add … --remote\` made.`,
    );
  if (registryPartners && !secret('PARTNER_SEALING_KEY'))
    problems.push(
      `PARTNER_SEALING_KEY is not set: the registry's partners cannot be opened (500 MISCONFIGURED): \`${SETUP}\` sets it${unlisted}.`,
    );

  // Webhooks: complete and well-formed, or every route answers 500 MISCONFIGURED.
  const webhookUrl = setting('WEBHOOK_URL');
  const hasWebhookSecret = secret('WEBHOOK_SECRET');
  if (webhookUrl) {
    const bad = webhookUrlProblem(webhookUrl);
    if (bad) problems.push(`WEBHOOK_URL ${bad}.`);
    if (!hasWebhookSecret)
      problems.push(
        `WEBHOOK_SECRET is not set while WEBHOOK_URL is: every route would answer 500 MISCONFIGURED: \`${SETUP}\` makes it (or \`npx wrangler secret put WEBHOOK_SECRET --env ${DEPLOY_ENV}\`)${unlisted}.`,
      );
    if (!(config.queues?.producers ?? []).some((p) => p.binding === 'WEBHOOK_QUEUE'))
      problems.push(
        `WEBHOOK_QUEUE is not bound in [env.${DEPLOY_ENV}] while WEBHOOK_URL is set: restore its [[env.${DEPLOY_ENV}.queues.producers]] block.`,
      );
  } else if (hasWebhookSecret) {
    problems.push(
      'WEBHOOK_SECRET is set but WEBHOOK_URL is not: every route would answer 500 MISCONFIGURED; set WEBHOOK_URL (an https endpoint of the partner).',
    );
  }
  if (env.WEBHOOK_SECRET?.trim()) {
    const bad = webhookSecretProblem(env.WEBHOOK_SECRET);
    if (bad) problems.push(`WEBHOOK_SECRET ${bad}.`);
  }

  // The queues, named in wrangler.toml and (when Cloudflare can be asked) existing there.
  for (const b of QUEUE_BINDINGS) {
    if (!(config.queues?.producers ?? []).some((p) => p.binding === b && p.queue))
      problems.push(`queue binding ${b} is missing from [env.${DEPLOY_ENV}]: restore it from wrangler.toml in the repository.`);
  }
  if (missingQueues?.length)
    problems.push(
      `queue${missingQueues.length > 1 ? 's' : ''} ${missingQueues.join(', ')} not on Cloudflare: \`${SETUP}\` creates ${missingQueues.length > 1 ? 'them' : 'it'}.`,
    );
  return problems;
}

/** The secrets the shell gives: uploaded with the deploy (`--secrets-file`), never on a command line. */
export function shellSecrets(env) {
  return Object.fromEntries(SECRETS.filter((n) => env[n]?.trim()).map((n) => [n, env[n].trim()]));
}

/** The vars the shell gives: passed on as `--var NAME:value`. */
export function shellVars(env) {
  return Object.fromEntries(SHELL_VARS.filter((n) => env[n]?.trim()).map((n) => [n, env[n].trim()]));
}

/**
 * The wrangler commands of a deploy, in order: the D1 migrations first (a
 * worker whose schema is behind answers 500 on /v1 and /ops), then the
 * deploy. A dry run applies nothing (it has no login): it says what it would.
 */
export function deploySteps({ dryRun, vars, secretsFile, configFlag = [], extraArgs }) {
  const migrate = ['d1', 'migrations', 'apply', 'DB', '--remote', ...configFlag, '--env', DEPLOY_ENV];
  const deploy = [
    'deploy',
    ...configFlag,
    '--env',
    DEPLOY_ENV,
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
    ...(secretsFile ? ['--secrets-file', secretsFile] : []),
    ...extraArgs,
  ];
  return dryRun ? { migrate: undefined, wouldMigrate: migrate, deploy } : { migrate, deploy };
}
