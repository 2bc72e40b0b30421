// What `npm run deploy` (scripts/deploy.mjs) refuses before anything is built
// or uploaded, each problem naming its setting: a production worker missing
// one of these would answer 500 MISCONFIGURED (or sign with nothing, or write
// to no database) instead of failing here, where the operator is looking.
// Pure functions of the configuration wrangler reads and the shell's
// environment, so test/worker/deploy-script.test.ts checks each rule directly.

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

/**
 * Every reason not to deploy, one line each naming the setting.
 *   config         what wrangler reads for [env.production] (unstable_readConfig)
 *   env            the shell's environment (KYC_BASE_URL, PUBLIC_ORIGIN and secrets given there)
 *   remoteSecrets  names of the secrets already set on the deployed worker (`wrangler secret list`), or undefined when unknown
 */
export function deployProblems({ config, env, remoteSecrets }) {
  const problems = [];
  const vars = config.vars ?? {};
  const setting = (name) => {
    const v = env[name] ?? vars[name];
    return typeof v === 'string' ? v : undefined;
  };
  const base = baseUrlProblem(setting('KYC_BASE_URL'));
  if (base) problems.push(`KYC_BASE_URL ${base}.`);
  const origin = publicOriginProblem(setting('PUBLIC_ORIGIN'));
  if (origin) problems.push(`PUBLIC_ORIGIN ${origin}.`);
  const d1 = d1Problem(config);
  if (d1) problems.push(`${d1}.`);
  for (const name of LIVE_SECRETS) {
    const given = env[name]?.trim() || (typeof vars[name] === 'string' && vars[name].trim());
    if (!given && !remoteSecrets?.has(name))
      problems.push(
        `${name} is not set: \`npx wrangler secret put ${name} --env ${DEPLOY_ENV}\`, or give it in the shell for this deploy` +
          (remoteSecrets ? '.' : ' (the secrets already on Cloudflare were not listed: no CLOUDFLARE_API_TOKEN for a dry run).'),
      );
  }
  if (env.RESULT_SIGNING_KEYS?.trim()) {
    const keys = signingKeysProblem(env.RESULT_SIGNING_KEYS);
    if (keys) problems.push(`RESULT_SIGNING_KEYS ${keys}.`);
  }
  return problems;
}

/** The secrets of LIVE_SECRETS the shell gives: uploaded with the deploy (`--secrets-file`), never on a command line. */
export function shellSecrets(env) {
  return Object.fromEntries(LIVE_SECRETS.filter((n) => env[n]?.trim()).map((n) => [n, env[n].trim()]));
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
