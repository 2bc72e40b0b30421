#!/usr/bin/env node
// `npm run sandbox -- <command>`: outcomes on demand from the vendor's double, against a
// running local stack (`npm start`), with the real signed webhook (docs/sandbox.md). The
// outcome is in our words, whichever vendor the verification is with; its double says it
// in its own (the idv sandbox: a check status; the Stripe double: Verify, Fail with a code, Abandon).
//
//   complete <verificationId> --outcome <OUTCOME> [--code <code>]   the attempt ends with OUTCOME
//   requires-input <verificationId>                                 the same as `complete --outcome requires_input`
//   expire <verificationId>                                         the verification ends as expired now
//
// --code (stripe only): the `last_error.code` of a failed or requires_input outcome.
// --status <STATUS> (deprecated, idv only): the idv sandbox's own final check status.
// --url <origin>: the worker (default http://127.0.0.1:8787, or SANDBOX_URL). --json: the answer as the worker gave it.
import { parseArgs } from 'node:util';
import { FINAL_CHECK_STATUSES } from '../sandbox/outcome';
import { SANDBOX_OUTCOMES } from '../worker/entry/local-sandbox-outcomes';
import { VERIFICATION_ID } from '../worker/verifications/verification';

export const USAGE = `usage: npm run sandbox -- complete <verificationId> --outcome <OUTCOME> [--code <code>] [--url <worker>]
       npm run sandbox -- requires-input <verificationId> [--url <worker>]
       npm run sandbox -- expire <verificationId> [--url <worker>]
OUTCOME: ${SANDBOX_OUTCOMES.join(', ')} (idv has no abandoned, stripe no inconclusive)
--code: stripe only, the last_error.code of failed or requires_input (default consent_declined, document_unverified_other)
--status (deprecated, idv only): ${FINAL_CHECK_STATUSES.join(', ')}
--url defaults to http://127.0.0.1:8787 (or SANDBOX_URL); --json prints the worker's answer as it is.`;

export class UsageError extends Error {}

type Outcome = (typeof SANDBOX_OUTCOMES)[number];

export interface SandboxCommand {
  /** Path under the worker's origin. */
  path: string;
  body?: { outcome: Outcome; code?: string } | { status: string };
  url: string;
  json: boolean;
}

export function sandboxCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): SandboxCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        outcome: { type: 'string' },
        code: { type: 'string' },
        status: { type: 'string' },
        url: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  if (values.help || !command) throw new UsageError('');
  if (!['complete', 'requires-input', 'expire'].includes(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (!id || !VERIFICATION_ID.test(id)) throw new UsageError('give the verification id (vrf_…) after the command');
  if (extra.length) throw new UsageError(`unexpected ${JSON.stringify(extra[0])}`);
  let body: SandboxCommand['body'];
  if (command === 'complete') body = completeBody(values);
  else if (values.status !== undefined || values.outcome !== undefined || values.code !== undefined)
    throw new UsageError(`${command} takes no --outcome, --code or --status`);
  if (command === 'requires-input') body = { outcome: 'requires_input' };
  const base = (values.url ?? env.SANDBOX_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  try {
    new URL(base);
  } catch {
    throw new UsageError(`--url is not a URL: ${JSON.stringify(base)}`);
  }
  const action = command === 'expire' ? 'expire' : 'complete';
  return {
    path: `/sandbox/verifications/${encodeURIComponent(id)}/${action}`,
    ...(body ? { body } : {}),
    url: base,
    json: values.json === true,
  };
}

/** `complete`'s body: the outcome in our words (with a code), or the deprecated idv status. */
function completeBody(values: { outcome?: string; code?: string; status?: string }): NonNullable<SandboxCommand['body']> {
  if (values.status !== undefined) {
    if (values.outcome !== undefined || values.code !== undefined)
      throw new UsageError('--status cannot be combined with --outcome or --code');
    const status = values.status.trim().toUpperCase();
    if (!(FINAL_CHECK_STATUSES as readonly string[]).includes(status))
      throw new UsageError(`--status must be one of ${FINAL_CHECK_STATUSES.join(', ')}`);
    return { status };
  }
  const outcome = values.outcome?.trim().toLowerCase().replace(/-/g, '_');
  if (!outcome) throw new UsageError('complete needs --outcome <OUTCOME>');
  if (!(SANDBOX_OUTCOMES as readonly string[]).includes(outcome))
    throw new UsageError(`--outcome must be one of ${SANDBOX_OUTCOMES.join(', ')}`);
  const code = values.code?.trim();
  return { outcome: outcome as Outcome, ...(code ? { code } : {}) };
}

async function main(): Promise<number> {
  let cmd: SandboxCommand;
  try {
    cmd = sandboxCommand(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.message) console.error(`npm run sandbox: ${err.message}`);
    console.error(USAGE);
    return 2;
  }
  let res: Response;
  try {
    res = await fetch(cmd.url + cmd.path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(cmd.body ?? {}),
    });
  } catch {
    console.error(`npm run sandbox: nothing answers at ${cmd.url} (is \`npm start\` running? --url <worker>)`);
    return 1;
  }
  const text = await res.text();
  if (cmd.json || !res.ok) {
    (res.ok ? console.log : console.error)(text);
    if (res.status === 404 && /There is nothing here/.test(text))
      console.error('(the sandbox is not the vendor there, or the worker is not on a loopback host)');
    return res.ok ? 0 : 1;
  }
  const v = JSON.parse(text) as {
    verificationId: string;
    status: string;
    vendor?: string;
    checkStatus?: string;
    result?: { outcome: string; reason?: string };
    reason?: string;
    waitingFor?: string;
  };
  // Asked in the idv sandbox's word (the deprecated --status), answered in it, as before; else in ours.
  const deprecated = cmd.body !== undefined && 'status' in cmd.body;
  const outcome = v.result ? `${v.result.outcome}${v.result.reason ? `, ${v.result.reason}` : ''}` : undefined;
  const final = deprecated ? v.checkStatus : outcome;
  const detail = v.reason ? ` (${v.reason})` : v.status === 'final' && final ? ` (${final})` : '';
  console.log(`${v.verificationId}: ${v.status}${detail}${v.vendor && !deprecated ? ` at ${v.vendor}` : ''}`);
  if (v.waitingFor) console.log(`waiting for ${v.waitingFor}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/sandbox.ts')) process.exitCode = await main();
