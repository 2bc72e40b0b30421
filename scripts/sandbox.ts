#!/usr/bin/env node
// `npm run sandbox -- <command>`: outcomes on demand from the sandbox, against a
// running local stack (`npm start`), with the real signed webhook (docs/sandbox.md).
//
//   complete <verificationId> --status <STATUS>   the check ends with STATUS (CHECKED_SUCCESS_CLEAR, NO_MATCH, …)
//   requires-input <verificationId>                the same as `complete --status NO_MATCH`
//   expire <verificationId>                        the verification ends as expired now
//
// --url <origin>: the worker (default http://127.0.0.1:8787, or SANDBOX_URL). --json: the answer as the worker gave it.
import { parseArgs } from 'node:util';
import { FINAL_CHECK_STATUSES } from '../worker/vendor-api/schemas';
import { VERIFICATION_ID } from '../worker/verifications/verification';

export const USAGE = `usage: npm run sandbox -- complete <verificationId> --status <STATUS> [--url <worker>]
       npm run sandbox -- requires-input <verificationId> [--url <worker>]
       npm run sandbox -- expire <verificationId> [--url <worker>]
STATUS: ${FINAL_CHECK_STATUSES.join(', ')}
--url defaults to http://127.0.0.1:8787 (or SANDBOX_URL); --json prints the worker's answer as it is.`;

export class UsageError extends Error {}

/** What `requires-input` stands for: a check the vendor could not match, which the person may try again. */
export const REQUIRES_INPUT_STATUS = 'NO_MATCH';

export interface SandboxCommand {
  /** Path under the worker's origin. */
  path: string;
  body?: { status: string };
  url: string;
  json: boolean;
}

export function sandboxCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): SandboxCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { status: { type: 'string' }, url: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
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
  let status: string | undefined;
  if (command === 'complete') {
    status = values.status?.trim().toUpperCase();
    if (!status) throw new UsageError('complete needs --status <STATUS>');
    if (!(FINAL_CHECK_STATUSES as readonly string[]).includes(status))
      throw new UsageError(`--status must be one of ${FINAL_CHECK_STATUSES.join(', ')}`);
  } else if (values.status !== undefined) throw new UsageError(`${command} takes no --status`);
  if (command === 'requires-input') status = REQUIRES_INPUT_STATUS;
  const base = (values.url ?? env.SANDBOX_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  try {
    new URL(base);
  } catch {
    throw new UsageError(`--url is not a URL: ${JSON.stringify(base)}`);
  }
  const action = command === 'expire' ? 'expire' : 'complete';
  return {
    path: `/sandbox/verifications/${encodeURIComponent(id)}/${action}`,
    ...(status ? { body: { status } } : {}),
    url: base,
    json: values.json === true,
  };
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
  const v = JSON.parse(text) as { verificationId: string; status: string; checkStatus: string; reason?: string; waitingFor?: string };
  const detail = v.reason ? ` (${v.reason})` : v.status === 'final' ? ` (${v.checkStatus})` : '';
  console.log(`${v.verificationId}: ${v.status}${detail}`);
  if (v.waitingFor) console.log(`waiting for ${v.waitingFor}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/sandbox.ts')) process.exitCode = await main();
