#!/usr/bin/env node
// `npm run ops -- <command>`: the operator console from a terminal (docs/operations.md).
//
//   funnel   [--partner ID] [--since 7d]        the funnel per partner (24h, 7d, 30d, or <n>h / <n>d)
//   vendors  [--partner ID] [--since 7d]        per vendor, as /ops shows it: links, finals, failovers with
//                                               their causes, calls (health), webhook deliveries
//   webhooks [--state dead|failed|undelivered|all] [--partner ID]   webhook deliveries (default: failed)
//   redeliver <verificationId>                  the verification's last webhook event again (same webhook-id)
//
// Where: the local worker (`npm start`) at http://127.0.0.1:8787 by default
// (--url <origin>, or OPS_URL); --remote = the deployed worker at OPS_URL (or
// --url), with the token from the environment variable OPS_TOKEN (never an
// argument: other users can read those in `ps`). --json prints the answer as
// the API gave it.
import { VERIFICATION_ID } from '../worker/verifications/verification';
import type { FunnelAnswer, VendorsAnswer } from '../worker/ops/report';

class UsageError extends Error {}

const USAGE = `usage: npm run ops -- funnel [--partner ID] [--since 7d]
       npm run ops -- vendors [--partner ID] [--since 7d]
       npm run ops -- webhooks [--state dead|failed|undelivered|all] [--partner ID]
       npm run ops -- redeliver <verificationId>
options: --url <origin> (default http://127.0.0.1:8787, or OPS_URL), --remote (OPS_URL + OPS_TOKEN), --json`;

interface Args {
  command: string;
  positional: string[];
  flags: Map<string, string>;
  booleans: Set<string>;
}

const BOOLEANS = new Set(['remote', 'json', 'help']);
const VALUED = new Set(['partner', 'since', 'state', 'url']);

export function parseArgs(argv: string[]): Args {
  const [command = 'help', ...rest] = argv;
  const flags = new Map<string, string>();
  const booleans = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (name === 'token')
      throw new UsageError('--token is not accepted: a token never goes in arguments. Set OPS_TOKEN in the environment.');
    if (BOOLEANS.has(name)) booleans.add(name);
    else if (VALUED.has(name)) {
      const value = eq === -1 ? rest[++i] : a.slice(eq + 1);
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else throw new UsageError(`unknown option --${name}`);
  }
  return { command, positional, flags, booleans };
}

/** `7d`, `24h`, `30d` → milliseconds. */
export function sinceMs(value: string): number {
  const m = /^(\d{1,4})([hd])$/.exec(value.trim());
  if (!m || Number(m[1]) === 0) throw new UsageError(`--since must look like 24h or 7d, not "${value}"`);
  const n = Number(m[1]) * (m[2] === 'h' ? 3_600_000 : 86_400_000);
  if (n > 400 * 86_400_000) throw new UsageError('--since is at most 400d');
  return n;
}

function origin(args: Args): string {
  const raw = args.flags.get('url') ?? process.env.OPS_URL ?? (args.booleans.has('remote') ? undefined : 'http://127.0.0.1:8787');
  if (!raw) throw new UsageError('--remote needs the worker’s address: --url https://kyc.example.com or OPS_URL');
  try {
    const u = new URL(raw);
    if (!/^https?:$/.test(u.protocol)) throw new Error();
    return u.origin;
  } catch {
    throw new UsageError(`not an http(s) address: "${raw}"`);
  }
}

async function call(args: Args, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const base = origin(args);
  const token = process.env.OPS_TOKEN?.trim();
  if (args.booleans.has('remote') && !token) throw new UsageError('--remote needs OPS_TOKEN in the environment');
  let res: Response;
  try {
    res = await fetch(base + path, { method, headers: token ? { Authorization: `Bearer ${token}` } : {}, redirect: 'manual' });
  } catch {
    throw new Error(`cannot reach ${base}${args.booleans.has('remote') ? '' : ' (is `npm start` running?)'}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const why =
      res.status === 404 && /^\/ops\/api\/(funnel|vendors)/.test(path)
        ? 'the console is off: set OPS_TOKEN or Cloudflare Access on the worker (docs/operations.md)'
        : res.status === 401
          ? 'not allowed: OPS_TOKEN is missing or wrong'
          : ((body as { errorMsg?: string } | undefined)?.errorMsg ?? `HTTP ${res.status}`);
    throw new Error(`${method} ${path}: ${res.status} ${why}`);
  }
  return body;
}

const pad = (s: string | number, n: number, right = false) => (right ? String(s).padStart(n) : String(s).padEnd(n));

export function funnelTable(answer: FunnelAnswer): string {
  const lines = [`${answer.from} → ${answer.to}`];
  if (!answer.partners.length) return [...lines, 'No events in this range.'].join('\n');
  const head = ['partner', 'shown', 'link', 'refused', 'returned', 'final', 'expired', 'canceled', 'final/shown', 'median'];
  const rows = answer.partners.map((p) => [
    p.partnerId,
    p.shown,
    p.linkCreated,
    p.linkRefused,
    p.returned,
    p.final,
    p.expired,
    p.canceled,
    p.shown ? `${((100 * p.final) / p.shown).toFixed(1)}%` : '–',
    p.medianSecondsToFinal === null ? '–' : `${p.medianSecondsToFinal} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  lines.push(head.map((h, i) => pad(h, widths[i]!, i > 0)).join('  '));
  for (const [j, r] of rows.entries()) {
    lines.push(r.map((v, i) => pad(v, widths[i]!, i > 0)).join('  '));
    const mix = Object.entries(answer.partners[j]!.byCheckStatus)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    if (mix) lines.push(`  ${mix}`);
  }
  return lines.join('\n');
}

const share = (n: number | null) => (n === null ? '–' : `${(100 * n).toFixed(1)}%`);
const counts = (by: Record<string, number>) =>
  Object.entries(by)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

/** Each vendor as the console's "Per vendor" shows it: one line, then its failovers' causes, its calls and its deliveries. */
export function vendorsTable(answer: VendorsAnswer): string {
  const lines = [`${answer.from} → ${answer.to}`];
  if (!answer.vendors.length) return [...lines, 'No vendor activity in this range.'].join('\n');
  const head = ['vendor', 'links', 'final', 'failed over from', 'failed over to', 'calls ok'];
  const rows = answer.vendors.map((v) => [v.vendor, v.linkCreated, v.final, v.failedOverFrom, v.failedOverTo, share(v.okShare)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  lines.push(head.map((h, i) => pad(h, widths[i]!, i > 0)).join('  '));
  for (const [j, r] of rows.entries()) {
    const v = answer.vendors[j]!;
    lines.push(r.map((x, i) => pad(x, widths[i]!, i > 0)).join('  '));
    const causes = counts(v.failoverCauses);
    if (causes) lines.push(`  passed over: ${causes}`);
    for (const c of v.calls) {
      const timing = c.p50Ms === null ? '' : `, p50 ${c.p50Ms} ms, p95 ${c.p95Ms ?? '–'} ms`;
      lines.push(`  ${c.operation}: ${c.calls} calls (${counts(c.byOutcome) || 'none'})${timing}`);
    }
    const deliveries = counts(v.deliveries);
    if (deliveries) lines.push(`  webhooks: ${deliveries}`);
  }
  return lines.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const json = args.booleans.has('json');
  switch (args.command) {
    case 'funnel': {
      const q = new URLSearchParams();
      const partner = args.flags.get('partner');
      if (partner) q.set('partner', partner);
      const to = Date.now();
      q.set('from', new Date(to - sinceMs(args.flags.get('since') ?? '7d')).toISOString());
      q.set('to', new Date(to).toISOString());
      const answer = (await call(args, 'GET', `/ops/api/funnel?${q}`)) as Parameters<typeof funnelTable>[0];
      console.log(json ? JSON.stringify(answer, null, 2) : funnelTable(answer));
      return;
    }
    case 'vendors': {
      const q = new URLSearchParams();
      const partner = args.flags.get('partner');
      if (partner) q.set('partner', partner);
      const to = Date.now();
      q.set('from', new Date(to - sinceMs(args.flags.get('since') ?? '7d')).toISOString());
      q.set('to', new Date(to).toISOString());
      const answer = (await call(args, 'GET', `/ops/api/vendors?${q}`)) as VendorsAnswer;
      console.log(json ? JSON.stringify(answer, null, 2) : vendorsTable(answer));
      return;
    }
    case 'webhooks': {
      const state = args.flags.get('state') ?? 'failed';
      if (!['dead', 'failed', 'undelivered', 'all'].includes(state)) throw new UsageError('--state is dead, failed, undelivered or all');
      const q = new URLSearchParams({ state });
      const partner = args.flags.get('partner');
      if (partner) q.set('partner', partner);
      const answer = (await call(args, 'GET', `/ops/api/webhooks?${q}`)) as {
        data: {
          verificationId: string;
          partnerId: string;
          type: string;
          state: string;
          attempts: number;
          lastResponseStatus: number | null;
        }[];
      };
      if (json) console.log(JSON.stringify(answer, null, 2));
      else if (!answer.data.length) console.log(`No ${state === 'all' ? '' : `${state} `}deliveries.`);
      else
        for (const d of answer.data)
          console.log(
            `${d.verificationId}  ${d.partnerId}  ${d.type}  ${d.state}  attempts ${d.attempts}  last ${d.lastResponseStatus ?? 'no answer'}`,
          );
      return;
    }
    case 'redeliver': {
      const [id, extra] = args.positional;
      if (!id || extra !== undefined) throw new UsageError('redeliver takes one verificationId');
      if (!VERIFICATION_ID.test(id)) throw new UsageError(`not a verification id: "${id}" (vrf_ + 26 characters)`);
      const r = (await call(args, 'POST', `/ops/api/webhooks/${id}/redeliver`)) as { webhookId: string; type: string };
      console.log(json ? JSON.stringify(r, null, 2) : `Queued: ${r.type} for ${id} (webhook-id ${r.webhookId}).`);
      return;
    }
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/ops.ts')) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`ops: ${err.message}\n${USAGE}`);
      process.exit(2);
    }
    console.error(`ops: ${(err as Error).message}`);
    process.exit(1);
  });
}
