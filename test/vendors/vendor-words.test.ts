/**
 * Nothing outside an adapter's folder knows its vendor's words (docs/vendors.md;
 * issue 41's "Done when"): `git grep` of the idv vendor's paths, headers,
 * status words and field names (from its interface document: the onboarding
 * link, result, search and health operations, the credential headers, the
 * check statuses) finds them in the product only in `worker/vendors/idv/`,
 * the doubles (`sandbox/`), the migrations and the tests. The deprecated
 * `checkStatus` field name is allowed.
 *
 * Nothing is left outside them (`LEFT` is empty, and only ever shrank): a
 * file with one of the words fails naming both. Should an entry ever be
 * needed again, a listed file that no longer has its word fails too, so the
 * list is kept true.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The idv vendor's words, by kind. Each is searched as written (`git grep -E`). */
const WORDS = {
  // Its check statuses (CHECKED_SUCCESS covers _CLEAR and _WITH_NOTES).
  statuses: ['CHECKED_SUCCESS', 'CHECKED_PARTIAL_SUCCESS', 'CHECKED_FAILED', 'NO_MATCH', 'UNPROCESSABLE', 'CHECKING'],
  // Its paths: the onboarding link, the result, entity search's default, the health check.
  paths: ['idvalidate', 'onboarding-url', 'kyc/ruok', 'kyc/entity'],
  // Its credential headers.
  headers: ['X-Service-', 'CustomerChildID', 'api_key'],
  // Its request and answer fields and ids.
  fields: [
    'checkId',
    'applicationRef',
    'channelRef',
    'successRedirectURL',
    'errorRedirectURL',
    'messageTemplateId',
    'recipientName',
    'reprocessResult',
    'requestedDocuments',
    'entitySearchResults',
    'scanDataRetrievalState',
    'documentStatus',
  ],
} as const;
const ALL: string[] = Object.values(WORDS).flat();

/** The product: what is deployed, shipped or run by an operator (docs describe the deprecated field and the mapping). */
const PRODUCT = ['worker', 'widget', 'demo', 'scripts', 'examples', 'rules', 'packages'];

/** Where the vendor's words belong. */
const ALLOWED_PLACES = [
  'worker/vendors/idv/', // its adapter
  'sandbox/', // its double (and Stripe's)
  'migrations/',
  'test/',
  'examples/partner-backend-python/tests/', // the example's tests
];

/**
 * Files still holding vendor words, with the words each may hold. Remove an
 * entry (or a word) once its file is clean: the test then keeps it clean.
 */
const LEFT: Record<string, { words: string[]; why: string }> = {};

/** Every `file: word` of the product outside the allowed places. */
function found(): Map<string, Set<string>> {
  let out = '';
  try {
    out = execFileSync('git', ['grep', '-o', '-I', '-E', ALL.join('|'), '--', ...PRODUCT], { cwd: ROOT, encoding: 'utf8' });
  } catch (err) {
    // git grep exits 1 when nothing matches.
    if ((err as { status?: number }).status !== 1) throw err;
  }
  const hits = new Map<string, Set<string>>();
  for (const line of out.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const [file, match] = [line.slice(0, colon), line.slice(colon + 1)];
    if (ALLOWED_PLACES.some((p) => file.startsWith(p))) continue;
    // The match as listed: a status word by its listed prefix (CHECKED_SUCCESS_CLEAR is CHECKED_SUCCESS).
    const word = ALL.find((w) => match.startsWith(w)) ?? match;
    hits.set(file, (hits.get(file) ?? new Set()).add(word));
  }
  return hits;
}

describe("the idv vendor's words stay in its adapter", () => {
  const hits = found();

  it('no file outside the allowed places has a word it is not listed for', () => {
    const unexpected = [...hits]
      .flatMap(([file, words]) => [...words].filter((w) => !LEFT[file]?.words.includes(w)).map((w) => `${file}: ${w}`))
      .sort();
    assert.deepEqual(unexpected, [], `the idv vendor's words outside worker/vendors/idv/:\n${unexpected.join('\n')}`);
  });

  it('the list of what is left is true (a cleaned file or word is taken off it)', () => {
    const stale = Object.entries(LEFT)
      .flatMap(([file, { words }]) => words.filter((w) => !hits.get(file)?.has(w)).map((w) => `${file}: ${w}`))
      .sort();
    assert.deepEqual(stale, [], `listed but no longer there (remove from LEFT):\n${stale.join('\n')}`);
  });

  it('finds a word where one is (the search itself works)', () => {
    // The adapter's own folder has them all but a few; the search must see it, or the two checks above prove nothing.
    const own = execFileSync('git', ['grep', '-l', '-E', ALL.join('|'), '--', 'worker/vendors/idv/'], { cwd: ROOT, encoding: 'utf8' });
    assert.match(own, /worker\/vendors\/idv\/client\.ts/);
  });
});
