/**
 * `npm run check:docs` refuses a `wrangler secret put` (or a remote D1
 * migration) without `--env` in any doc: it would set the secret on the local
 * stack's worker, and production (`--env production`) would miss it. The
 * rule reads the command to its end: inline code across a wrapped line, a
 * code block's line with its `\` continuations, never a comment after it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { check, commandsWithoutEnv } from '../../scripts/check-docs.mjs';

describe('check:docs: wrangler commands name their environment', () => {
  it('finds a secret put without --env, in prose, wrapped inline code, a code block and a commented example', () => {
    assert.deepEqual(commandsWithoutEnv('Set it: `npx wrangler secret put\nOPS_TOKEN` with a long value.').length, 1);
    assert.deepEqual(commandsWithoutEnv('#   npx wrangler secret put KYC_API_KEY   (and each of the others)').length, 1);
    const block =
      '```sh\nnpx wrangler secret put A   # not --env production\nnpx wrangler secret put B \\\n  --env production\nnpx wrangler d1 migrations apply DB --remote\n```';
    assert.deepEqual(
      commandsWithoutEnv(block).map((f) => f.line),
      [2, 5],
    );
  });

  it('accepts the command with --env, wherever it is written', () => {
    assert.deepEqual(commandsWithoutEnv('`npx wrangler secret put\nOPS_TOKEN --env production`'), []);
    assert.deepEqual(commandsWithoutEnv('npm run -s keygen | npx wrangler secret put RESULT_SIGNING_KEYS --env production'), []);
    assert.deepEqual(commandsWithoutEnv('npx wrangler d1 migrations apply DB --local'), []);
  });

  it("the repository's docs pass", () => {
    const { problems } = check();
    assert.deepEqual(
      problems.filter((p) => p.includes('has no --env')),
      [],
    );
  });
});
