#!/usr/bin/env node
// `npm run partners -- <command>`: manage the partner registry (docs/partners.md).
//
//   add <id> --name <text> --origin <origin> [--origin …] --child-id <id> [options]
//   list
//   show <id>
//   update <id> [options]            only what is given changes
//   rotate-key <id>                  a new vendor API key (from PARTNER_API_KEY or --api-key-file)
//   remove <id>
//   rotate-server-key <id>           a new /v1 server key, printed once; the previous key keeps working
//   rotate-server-key <id> --drop-old    the previous server key stops working (after your servers switched)
//   dev-keys [--url <worker>]        the demo partners' development server keys, from a local worker (npm start)
//   keygen                           a new sealing key pair (see docs/partners.md, "Rotating the sealing key")
//
// Options: --flow-id, --sms-sender-name, --sms-template-id, --default-country, --min-age, --webhook-url,
// --vendors <idv,stripe in priority order>, --failover <off|before_start>,
// --clear <field> (flowId, smsSenderName, smsTemplateId, defaultCountry, minAge, turnstileSecret, webhookUrl, webhookSecret,
// vendors, failover, stripeSecretKey, stripeWebhookSecret).
// Secrets never come from arguments (other users can read those in `ps`):
// PARTNER_API_KEY, PARTNER_TURNSTILE_SECRET, PARTNER_WEBHOOK_SECRET,
// PARTNER_STRIPE_SECRET_KEY, PARTNER_STRIPE_WEBHOOK_SECRET in the
// environment, or --api-key-file / --turnstile-secret-file /
// --webhook-secret-file / --stripe-secret-key-file / --stripe-webhook-secret-file
// <path> ("-" = standard input). The partner's own Stripe key and signing
// secret need stripe in its --vendors; without them it uses the deployment's
// STRIPE_* (a vendor with credentials nowhere is refused; `list` and `show`
// say where each vendor's come from, never the values).
//
// Where: by default the local state of `npm start` (wrangler's local KV in
// .wrangler/state, or STATE_DIR / --persist-to); --remote = the PARTNERS
// namespace on Cloudflare, through wrangler (--namespace-id <id> if the
// binding in wrangler.toml has none). Nothing printed contains a secret, except
// a new /v1 server key (`add`, `rotate-server-key`), printed once: the worker
// keeps only its SHA-256, so it cannot be shown again.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import {
  buildRecord,
  describe,
  vendorCredentials,
  type DeploymentVendors,
  InputError,
  readRecord,
  removeRecord,
  storedPublicKey,
  writeRecord,
  type PartnerInput,
  type RegistryStore,
} from '../worker/partners/admin';
import { SEALING_PUBLIC_KEY } from '../worker/partners/partner';
import { KV_PROPAGATION_SECONDS } from '../worker/partners/registry';
import { cacheSeconds, readConfig } from '../worker/config';
import type { Env } from '../worker/lib/env';
import { isVendorId } from '../worker/vendors/adapter';
import { tomlValue } from './lib/toml-edit.mjs';
import { DEV_SEALING_KEY, publicJwk, sealedKid } from '../worker/partners/sealing';
import { newServerKey, serverKeyHash } from '../worker/server-api/keys';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WRANGLER_ENV = {
  CI: 'true',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  NO_COLOR: '1',
};

class UsageError extends Error {}

// ── arguments ────────────────────────────────────────────────────────────
interface Args {
  command: string;
  id?: string;
  flags: Map<string, string[]>;
}

const BOOLEAN_FLAGS = new Set(['remote', 'local', 'json', 'keep-previous', 'help', 'via-wrangler', 'drop-old']);
const SECRET_FLAGS = ['api-key', 'turnstile-secret', 'webhook-secret', 'stripe-secret-key', 'stripe-webhook-secret'];

function parseArgs(argv: string[]): Args {
  const [command = 'help', ...rest] = argv;
  const flags = new Map<string, string[]>();
  let id: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (!a.startsWith('--')) {
      if (id !== undefined) throw new UsageError(`unexpected argument "${a}"`);
      id = a;
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (SECRET_FLAGS.includes(name)) {
      throw new UsageError(`--${name} is not accepted: secrets never go in arguments. Use ${envName(name)} or --${name}-file <path|->.`);
    }
    let value: string;
    if (BOOLEAN_FLAGS.has(name)) value = 'true';
    else if (eq !== -1) value = a.slice(eq + 1);
    else {
      const next = rest[++i];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { command, id, flags };
}

const envName = (flag: string) => `PARTNER_${flag.replace(/-/g, '_').toUpperCase()}`;
const one = (a: Args, name: string) => a.flags.get(name)?.at(-1);

let stdinUsed = false;
/** A secret from PARTNER_<NAME> or --<name>-file (path, or "-" for standard input). */
function secret(a: Args, name: string): string | undefined {
  const file = one(a, `${name}-file`);
  if (file !== undefined) {
    if (file === '-') {
      if (stdinUsed) throw new UsageError('only one secret can come from standard input');
      stdinUsed = true;
      return readFileSync(0, 'utf8').trim();
    }
    return readFileSync(file, 'utf8').trim();
  }
  const fromEnv = process.env[envName(name)];
  return fromEnv === undefined ? undefined : fromEnv.trim();
}

// ── where the registry is ────────────────────────────────────────────────
function persistDir(a: Args): string | undefined {
  const dir = one(a, 'persist-to') ?? process.env.STATE_DIR;
  return dir ? resolve(dir) : undefined;
}

function wrangler(args: string[], input?: string): string {
  const r = spawnSync(join(ROOT, 'node_modules/.bin/wrangler'), args, {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, ...WRANGLER_ENV },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) {
    // wrangler's own messages, never ours: they hold no secret of ours (values are sealed).
    throw new Error(`wrangler ${args.slice(0, 3).join(' ')} failed:\n${(r.stderr || r.stdout).trim().slice(-2000)}`);
  }
  return r.stdout;
}

/** The registry over wrangler's KV commands: Cloudflare with --remote, the local state otherwise. */
function wranglerStore(a: Args): RegistryStore {
  const remote = a.flags.has('remote');
  const ns = one(a, 'namespace-id');
  const target = [...(ns ? ['--namespace-id', ns] : ['--binding', 'PARTNERS']), remote ? '--remote' : '--local'];
  const dir = persistDir(a);
  if (!remote && dir) target.push('--persist-to', dir);
  return {
    async get(key) {
      const names = JSON.parse(wrangler(['kv', 'key', 'list', '--prefix', key, ...target])) as { name: string }[];
      if (!names.some((n) => n.name === key)) return null;
      return wrangler(['kv', 'key', 'get', key, '--text', ...target]);
    },
    async put(key, value) {
      // Through a file: values are sealed, but a file also keeps long values off the command line.
      const tmp = mkdtempSync(join(tmpdir(), 'kyc-partners-'));
      try {
        const file = join(tmp, 'bulk.json');
        writeFileSync(file, JSON.stringify([{ key, value }]), { mode: 0o600 });
        wrangler(['kv', 'bulk', 'put', file, ...target]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    async delete(key) {
      wrangler(['kv', 'key', 'delete', key, ...target]);
    },
    async list(prefix) {
      return (JSON.parse(wrangler(['kv', 'key', 'list', '--prefix', prefix, ...target])) as { name: string }[]).map((n) => n.name);
    },
  };
}

/** The local state of `npm start` opened directly (as wrangler does), which is much faster than a wrangler call per key. */
async function localStore(a: Args): Promise<{ store: RegistryStore; close: () => Promise<void> }> {
  const { Miniflare } = await import('miniflare');
  const dir = persistDir(a) ?? join(ROOT, '.wrangler/state');
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } }',
    // wrangler keeps local KV under <state>/v3/kv, the namespace named by its id (here the binding name).
    kvNamespaces: { PARTNERS: 'PARTNERS' },
    kvPersist: join(dir, 'v3/kv'),
  });
  const kv = await mf.getKVNamespace('PARTNERS');
  return {
    store: {
      get: (k) => kv.get(k),
      put: (k, v) => kv.put(k, v),
      delete: (k) => kv.delete(k),
      list: async (p) => {
        const names: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await kv.list({ prefix: p, cursor });
          names.push(...page.keys.map((k) => k.name));
          cursor = page.list_complete ? undefined : page.cursor;
        } while (cursor);
        return names;
      },
    },
    close: () => mf.dispose(),
  };
}

// ── settings of the local worker (.dev.vars) ─────────────────────────────
/** The local worker's .dev.vars (PARTNERS_DEV_VARS names another file: scripts, tests). */
const devVarsFile = () => resolve(process.env.PARTNERS_DEV_VARS || join(ROOT, '.dev.vars'));

function devVars(): Map<string, string> {
  const vars = new Map<string, string>();
  const file = devVarsFile();
  if (!existsSync(file)) return vars;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Z0-9_]+)\s*=\s*(.*)$/.exec(line);
    if (m)
      vars.set(
        m[1]!,
        m[2]!
          .trim()
          .replace(/^'(.*)'$/, '$1')
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return vars;
}

/** The vendor settings of `npm start`'s worker: .dev.vars, and the environment's (as `npm start` takes them). */
function localVendorSettings(): Env {
  const vars: Record<string, string> = Object.fromEntries(devVars());
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && /^(KYC_BASE_URL|KYC_VENDOR|VENDOR_FAILOVER|STRIPE_[A-Z_]+)$/.test(name)) vars[name] = value;
  return vars as unknown as Env;
}

/**
 * What the CLI knows of the deployment it writes for. Locally all of it (the
 * local worker's settings); with --remote the vars of wrangler.toml and the
 * names of its secrets (`wrangler secret list`), never their values: the
 * worker itself refuses a partner's Stripe key of the other mode.
 */
function deploymentOf(a: Args): DeploymentVendors {
  if (!a.flags.has('remote')) {
    const cfg = readConfig(localVendorSettings());
    return {
      order: cfg.vendors.order,
      stripeKey: Boolean(cfg.secrets.stripeSecretKey),
      stripeDouble: cfg.vendors.stripe.sandbox,
      live: cfg.livemode,
    };
  }
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const order = (tomlValue(toml, 'vars', 'KYC_VENDOR') ?? 'idv')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(isVendorId);
  let stripeKey: boolean | undefined;
  try {
    const names = JSON.parse(wrangler(['secret', 'list', '--format', 'json'])) as { name: string }[];
    stripeKey = names.some((n) => n.name === 'STRIPE_SECRET_KEY');
  } catch {
    stripeKey = undefined; // cannot tell: the worker answers for it
  }
  return {
    order: order.length ? order : ['idv'],
    stripeKey,
    stripeDouble: tomlValue(toml, 'vars', 'STRIPE_API_BASE') === 'sandbox',
    // A remote deployment's idv is real (live); a Stripe-only one is in the mode of its key, which is a secret.
    live: order.includes('stripe') && !order.includes('idv') ? undefined : true,
  };
}

function localUsesSandbox(): boolean {
  const base = devVars().get('KYC_BASE_URL');
  return !base || base === 'sandbox';
}

/** The public key to seal to: --public-key file, the registry's, the local worker's key, or (local sandbox) the development key. */
async function publicKeyFor(a: Args, store: RegistryStore): Promise<JWK> {
  const file = one(a, 'public-key');
  if (file) return publicJwk(JSON.parse(readFileSync(file, 'utf8')) as JWK);
  const stored = await storedPublicKey(store);
  if (stored) return stored;
  if (!a.flags.has('remote')) {
    const local = devVars().get('PARTNER_SEALING_KEY');
    if (local) {
      const parsed = JSON.parse(local) as JWK | JWK[];
      return publicJwk(Array.isArray(parsed) ? parsed[0]! : parsed);
    }
    if (localUsesSandbox()) return publicJwk(DEV_SEALING_KEY);
  }
  throw new UsageError(
    'no sealing key yet: run `npm run partners -- keygen' +
      (a.flags.has('remote') ? ' --remote --out <file>`' : '`') +
      ' first (docs/partners.md).',
  );
}

// ── commands ─────────────────────────────────────────────────────────────
const CLEARABLE = [
  'flowId',
  'smsSenderName',
  'smsTemplateId',
  'defaultCountry',
  'minAge',
  'turnstileSecret',
  'webhookUrl',
  'webhookSecret',
  'vendors',
  'failover',
  'stripeSecretKey',
  'stripeWebhookSecret',
] as const;

function inputFrom(a: Args): PartnerInput {
  const input: PartnerInput = {};
  const name = one(a, 'name');
  if (name !== undefined) input.displayName = name;
  const origins = a.flags.get('origin');
  if (origins)
    input.origins = origins
      .flatMap((o) => o.split(','))
      .map((o) => o.trim())
      .filter(Boolean);
  const child = one(a, 'child-id');
  if (child !== undefined) input.childId = child;
  const map: [string, keyof PartnerInput][] = [
    ['flow-id', 'flowId'],
    ['sms-sender-name', 'smsSenderName'],
    ['sms-template-id', 'smsTemplateId'],
    ['default-country', 'defaultCountry'],
    ['webhook-url', 'webhookUrl'],
  ];
  for (const [flag, field] of map) {
    const v = one(a, flag);
    if (v !== undefined) (input as Record<string, unknown>)[field] = v;
  }
  const minAge = one(a, 'min-age');
  if (minAge !== undefined) {
    if (!/^\d{1,3}$/.test(minAge)) throw new UsageError('--min-age takes whole years from 1 to 120, such as 18');
    input.minAge = Number(minAge);
  }
  const vendors = a.flags.get('vendors');
  if (vendors)
    input.vendors = vendors
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean);
  const failover = one(a, 'failover');
  if (failover !== undefined) input.failover = failover;
  const apiKey = secret(a, 'api-key');
  if (apiKey !== undefined) input.apiKey = apiKey;
  const ts = secret(a, 'turnstile-secret');
  if (ts !== undefined) input.turnstileSecret = ts;
  const hook = secret(a, 'webhook-secret');
  if (hook !== undefined) input.webhookSecret = hook;
  const stripeKey = secret(a, 'stripe-secret-key');
  if (stripeKey !== undefined) input.stripeSecretKey = stripeKey;
  const stripeHook = secret(a, 'stripe-webhook-secret');
  if (stripeHook !== undefined) input.stripeWebhookSecret = stripeHook;
  for (const field of a.flags.get('clear') ?? []) {
    if (!(CLEARABLE as readonly string[]).includes(field)) throw new UsageError(`--clear takes one of ${CLEARABLE.join(', ')}`);
    (input as Record<string, unknown>)[field] = null;
  }
  return input;
}

const KNOWN_FLAGS = new Set([
  'remote',
  'local',
  'json',
  'keep-previous',
  'help',
  'persist-to',
  'namespace-id',
  'public-key',
  'out',
  'via-wrangler',
  'name',
  'origin',
  'child-id',
  'flow-id',
  'sms-sender-name',
  'sms-template-id',
  'default-country',
  'min-age',
  'webhook-url',
  'vendors',
  'failover',
  'clear',
  'api-key-file',
  'turnstile-secret-file',
  'webhook-secret-file',
  'stripe-secret-key-file',
  'stripe-webhook-secret-file',
  'drop-old',
  'url',
]);

function needId(a: Args): string {
  if (!a.id) throw new UsageError(`${a.command} needs a partner id`);
  return a.id;
}

function bound(): string {
  const cache = cacheSeconds(devVars().get('PARTNERS_CACHE_SECONDS'));
  return `${cache + KV_PROPAGATION_SECONDS} s (PARTNERS_CACHE_SECONDS ${cache} s + KV propagation up to ${KV_PROPAGATION_SECONDS} s)`;
}

async function run(a: Args, store: RegistryStore): Promise<void> {
  const sandbox = a.flags.has('remote') ? false : localUsesSandbox();
  switch (a.command) {
    case 'add': {
      const id = needId(a);
      if (await readRecord(store, id)) throw new UsageError(`partner ${id} exists already: use update`);
      const serverKey = newServerKey(sandbox ? 'test' : 'live');
      const input = { ...inputFrom(a), serverKeyHashes: [await serverKeyHash(serverKey)] };
      const deployment = deploymentOf(a);
      const record = await buildRecord(id, input, await publicKeyFor(a, store), { sandbox, deployment });
      await writeRecord(store, record);
      console.log(
        `added partner ${id} (${record.origins.join(', ')}), ${credentialsLine(record, deployment)}; in effect within ${bound()}`,
      );
      printServerKey(id, serverKey);
      return;
    }
    case 'rotate-server-key': {
      const id = needId(a);
      const previous = await readRecord(store, id);
      if (!previous) throw new UsageError(`there is no partner ${id}`);
      const held = previous.serverKeyHashes ?? [];
      if (a.flags.has('drop-old')) {
        if (held.length < 2) throw new UsageError(`partner ${id} has no previous server key to drop`);
        const record = await buildRecord(id, { serverKeyHashes: held.slice(0, 1) }, await publicKeyFor(a, store), {
          sandbox,
          previous,
          deployment: deploymentOf(a),
        });
        await writeRecord(store, record, previous);
        console.log(`partner ${id}: the previous server key is refused within ${bound()}; the newest one stays.`);
        return;
      }
      const serverKey = newServerKey(sandbox ? 'test' : 'live');
      // The new key first; the newest previous one keeps working until --drop-old (two at most).
      const hashes = [await serverKeyHash(serverKey), ...held.slice(0, 1)];
      const record = await buildRecord(id, { serverKeyHashes: hashes }, await publicKeyFor(a, store), {
        sandbox,
        previous,
        deployment: deploymentOf(a),
      });
      await writeRecord(store, record, previous);
      printServerKey(id, serverKey);
      console.log(
        held.length
          ? `The previous key keeps working: switch your servers to the new one, then \`npm run partners -- rotate-server-key ${id} --drop-old\`.`
          : 'It is the partner’s only server key.',
      );
      return;
    }
    case 'update':
    case 'rotate-key': {
      const id = needId(a);
      const previous = await readRecord(store, id);
      if (!previous) throw new UsageError(`there is no partner ${id}`);
      const input = a.command === 'rotate-key' ? { apiKey: secret(a, 'api-key') } : inputFrom(a);
      if (a.command === 'rotate-key' && !input.apiKey)
        throw new UsageError('rotate-key needs the new key in PARTNER_API_KEY or --api-key-file <path|->');
      const record = await buildRecord(id, input, await publicKeyFor(a, store), { sandbox, previous, deployment: deploymentOf(a) });
      await writeRecord(store, record, previous);
      if (a.command === 'rotate-key') {
        console.log(
          `partner ${id}: new vendor key stored. Every isolate uses it within ${bound()}; revoke the old key at the vendor only after that.`,
        );
      } else {
        console.log(`updated partner ${id}; in effect within ${bound()}`);
      }
      return;
    }
    case 'remove': {
      const id = needId(a);
      if (!(await removeRecord(store, id))) throw new UsageError(`there is no partner ${id}`);
      console.log(`removed partner ${id}; refused everywhere within ${bound()}`);
      return;
    }
    case 'show': {
      const id = needId(a);
      const record = await readRecord(store, id);
      if (!record) throw new UsageError(`there is no partner ${id}`);
      console.log(JSON.stringify(describe(record, deploymentOf(a)), null, 2));
      return;
    }
    case 'list': {
      const ids = (await store.list('partner:')).map((k) => k.slice('partner:'.length));
      const records = [];
      for (const id of ids) {
        const r = await readRecord(store, id);
        if (r) records.push(r);
      }
      const deployment = deploymentOf(a);
      if (a.flags.has('json')) {
        console.log(
          JSON.stringify(
            records.map((r) => describe(r, deployment)),
            null,
            2,
          ),
        );
        return;
      }
      if (!records.length) {
        console.log('no partners in the registry: the environment’s settings are the one partner (and the demo partners while DEMO is on)');
        return;
      }
      const rows = records.map((r) => [
        r.partnerId,
        r.displayName,
        r.childId ?? '-',
        r.origins.join(' '),
        r.apiKey ? (sealedKid(r.apiKey) ?? '?') : '-',
        r.updatedAt,
        credentialsOf(r, deployment),
      ]);
      const head = ['partner', 'name', 'child', 'origins', 'sealed to', 'updated', 'vendors (credentials)'];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
      for (const row of [head, ...rows])
        console.log(
          row
            .map((c, i) => c.padEnd(widths[i]!))
            .join('  ')
            .trimEnd(),
        );
      return;
    }
    case 'keygen': {
      const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
      const kid = `seal-${new Date().toISOString().slice(0, 10)}-${crypto.randomUUID().slice(0, 8)}`;
      const priv: JWK = { ...(await exportJWK(privateKey)), kid };
      if (a.flags.has('remote')) {
        const out = one(a, 'out');
        if (!out) throw new UsageError('keygen --remote needs --out <file>: the private key goes there (mode 600), never to the screen');
        if (existsSync(out)) throw new UsageError(`${out} exists; choose a new file`);
        writeFileSync(out, JSON.stringify(priv), { mode: 0o600 });
        chmodSync(out, 0o600);
        await store.put(SEALING_PUBLIC_KEY, JSON.stringify(publicJwk(priv)));
        console.log(`new sealing key ${kid}: private key written to ${out}; its public half is in the registry.
Next: npx wrangler secret put PARTNER_SEALING_KEY < ${out}   (during a rotation: a JSON array, new key first, then the old one)
Then store ${out} in your secret manager and delete it here.`);
      } else {
        const vars = devVars();
        const previous = vars.get('PARTNER_SEALING_KEY');
        let keys: JWK[] = [priv];
        if (previous && a.flags.has('keep-previous')) {
          const parsed = JSON.parse(previous) as JWK | JWK[];
          keys = [priv, ...(Array.isArray(parsed) ? parsed : [parsed])];
        }
        writeDevVar('PARTNER_SEALING_KEY', JSON.stringify(keys.length === 1 ? keys[0] : keys));
        await store.put(SEALING_PUBLIC_KEY, JSON.stringify(publicJwk(priv)));
        console.log(
          `new sealing key ${kid} in ${devVarsFile()}${keys.length > 1 ? ` (with ${keys.length - 1} previous key(s) still opening)` : ''}; restart \`npm start\` to load it.`,
        );
      }
      return;
    }
    default:
      throw new UsageError(`unknown command "${a.command}"`);
  }
}

/** Each vendor a record uses with where its credentials come from: `idv:own stripe:deployment`. */
function credentialsOf(record: Parameters<typeof vendorCredentials>[0], deployment: DeploymentVendors): string {
  return Object.entries(vendorCredentials(record, deployment))
    .map(([v, from]) => `${v}:${from}`)
    .join(' ');
}

function credentialsLine(record: Parameters<typeof vendorCredentials>[0], deployment: DeploymentVendors): string {
  return `vendors ${credentialsOf(record, deployment)}${record.childId ? `, child ${record.childId}` : ''}`;
}

/** A new server key, once: the worker keeps only its hash. */
function printServerKey(id: string, key: string): void {
  console.log(`\nServer key of ${id} for /v1 (shown once: store it in the partner's secret manager now):\n\n  ${key}\n`);
}

/** `dev-keys`: the demo partners' development keys, from a local worker (they are made inside it, on first use). */
async function devKeys(a: Args): Promise<void> {
  const base = (one(a, 'url') ?? `http://127.0.0.1:${process.env.PORT || 8787}`).replace(/\/$/, '');
  const host = new URL(base).hostname;
  if (!/^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/.test(host)) throw new UsageError('dev-keys asks a local worker only (a loopback --url)');
  let res: Response;
  try {
    res = await fetch(`${base}/sandbox/demo/server-keys`);
  } catch {
    throw new UsageError(`no worker answers at ${base}: start it with \`npm start\` (the sandbox and the demo on)`);
  }
  if (!res.ok) throw new UsageError(`the worker at ${base} has no development keys (is the sandbox the vendor, and DEMO on?)`);
  const { partners } = (await res.json()) as { partners: { partnerId: string; displayName: string; origin: string; serverKey: string }[] };
  if (a.flags.has('json')) {
    console.log(JSON.stringify(partners, null, 2));
    return;
  }
  for (const p of partners) console.log(`${p.partnerId}  ${p.displayName}  (pages on ${p.origin})\n  ${p.serverKey}`);
  console.log(`\nTry: curl -H "Authorization: Bearer ${partners[0]?.serverKey ?? 'kyc_sk_…'}" ${base}/v1/verifications`);
}

/** Sets one variable in .dev.vars, keeping every other line. */
function writeDevVar(name: string, value: string): void {
  const file = devVarsFile();
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const line = `${name}='${value}'`;
  const at = lines.findIndex((l) => new RegExp(`^\\s*${name}\\s*=`).test(l));
  if (at === -1) lines.splice(lines.length && lines.at(-1) === '' ? lines.length - 1 : lines.length, 0, line);
  else lines[at] = line;
  writeFileSync(file, lines.join('\n').replace(/\n*$/, '\n'), { mode: 0o600 });
}

/** The comment at the top of this file. */
const USAGE = (() => {
  const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8')
    .split('\n')
    .slice(1);
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return lines
    .slice(0, end)
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join('\n');
})();

async function main(): Promise<number> {
  let a: Args;
  try {
    a = parseArgs(process.argv.slice(2));
    for (const f of a.flags.keys()) if (!KNOWN_FLAGS.has(f)) throw new UsageError(`unknown option --${f}`);
  } catch (err) {
    console.error(`partners: ${(err as Error).message} (see: npm run partners -- help)`);
    return 2;
  }
  if (a.command === 'help' || a.flags.has('help')) {
    console.log(USAGE);
    return 0;
  }
  let close = async () => {};
  if (a.command === 'dev-keys') {
    try {
      await devKeys(a);
      return 0;
    } catch (err) {
      console.error(`partners: ${(err as Error).message}`);
      return err instanceof UsageError ? 2 : 1;
    }
  }
  try {
    let store: RegistryStore;
    if (a.flags.has('remote') || a.flags.has('via-wrangler')) store = wranglerStore(a);
    else ({ store, close } = await localStore(a));
    await run(a, store);
    return 0;
  } catch (err) {
    if (err instanceof InputError) console.error(`partners: not written, because:\n  ${err.problems.join('\n  ')}`);
    else if (err instanceof UsageError) console.error(`partners: ${err.message}`);
    else console.error(`partners: ${(err as Error).message}`);
    return err instanceof InputError || err instanceof UsageError ? 2 : 1;
  } finally {
    await close();
  }
}

process.exitCode = await main();
