/**
 * `npm run partners` (scripts/partners.ts) run as a person runs it, against a
 * test's own local state: `--persist-to <dir>/state`, and `<dir>/dev.vars` as
 * the local settings file (PARTNERS_DEV_VARS). Shared by the CLI's own tests
 * and the vendor settings it writes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './wrangler';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** One run of the CLI with `args` in `dir`'s state; `stdin` is what a person would type or pipe (nothing by default). */
export function partnersCli(dir: string, args: string[], env: Record<string, string> = {}, stdin = ''): Promise<CliRun> {
  return new Promise((ok) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts/partners.ts'), ...args, '--persist-to', join(dir, 'state')],
      {
        cwd: ROOT,
        env: { ...process.env, PARTNERS_DEV_VARS: join(dir, 'dev.vars'), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(stdin);
    child.on('close', (code) => ok({ code: code ?? -1, stdout, stderr }));
  });
}
