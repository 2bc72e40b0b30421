// The settings `npm start` (scripts/start.mjs) takes from the environment: every
// name of docs/configuration.md's table, one list (test/worker/start-settings.test.ts
// holds it equal to the table). Handed to wrangler through a private env file.

export const SETTING_NAMES = [
  'KYC_BASE_URL',
  'KYC_API_KEY',
  'KYC_CUSTOMER_ID',
  'KYC_CUSTOMER_CHILD_ID',
  'KYC_CHANNEL',
  'KYC_VENDOR',
  'VENDOR_FAILOVER',
  'STRIPE_SECRET_KEY',
  'STRIPE_API_BASE',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_VERIFICATION_TYPE',
  'KYC_FLOW_ID',
  'KYC_PROVIDER',
  'KYC_SMS_SENDER_NAME',
  'KYC_SMS_TEMPLATE_ID',
  'KYC_SEARCH_PATH',
  'KYC_TIMEOUT_MS',
  'ALLOWED_ORIGINS',
  'SESSION_SECRET',
  'PUBLIC_ORIGIN',
  'RESULT_SIGNING_KEYS',
  'WEBHOOK_URL',
  'WEBHOOK_SECRET',
  'RESULT_POLL_SECONDS',
  'RESULT_POLL_MAX_SECONDS',
  'VERIFICATION_GRACE_SECONDS',
  'VERIFICATION_MAX_SECONDS',
  'LINK_MAX_SECONDS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_MAX_ATTEMPTS',
  'SMS_ALLOWED_COUNTRIES',
  'DEFAULT_COUNTRY',
  'MIN_AGE',
  'TURNSTILE_SECRET_KEY',
  'TURNSTILE_VERIFY_URL',
  'SMS_REQUIRES_TURNSTILE',
  'LIMIT_SMS_PER_NUMBER_PER_DAY',
  'LIMIT_OPEN_PER_IP',
  'LIMIT_OPEN_PER_PARTNER',
  'SANDBOX_CREDENTIALS',
  'SANDBOX_SEARCH_CAP',
  'SANDBOX_TTL_SECONDS',
  'DEMO',
  'PARTNER_SEALING_KEY',
  'PARTNER_SERVER_KEYS',
  'PARTNERS_CACHE_SECONDS',
  'OPS_TOKEN',
  'OPS_ACCESS_TEAM_DOMAIN',
  'OPS_ACCESS_AUD',
];

/**
 * The env file's lines for the settings `env` gives (`NAME='value'`), and the
 * names it cannot carry: the file quotes values in '…', so one holding a
 * quote or a newline goes in .dev.vars instead.
 */
export function settingsFromEnvironment(env) {
  const given = SETTING_NAMES.filter((n) => env[n] !== undefined);
  const unusable = given.filter((n) => /['\n]/.test(env[n]));
  const applied = given.filter((n) => !unusable.includes(n));
  return { applied, unusable, lines: applied.map((n) => `${n}='${env[n]}'`) };
}
