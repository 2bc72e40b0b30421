/**
 * The worker validates with zod/mini, which loads no locale: the texts of
 * problems our schemas leave without a message of their own (`minLength(1)`,
 * an enum, a literal) come from `zodEnglish` (worker/lib/errors.ts). They must
 * be word for word what zod's English locale says (what ErrorObjects and
 * `npm run partners` said with classic zod): every such issue our schemas
 * raise on a corpus of bad input is checked against the locale itself.
 * Nothing here imports classic zod (it would install the English locale for
 * everyone and hide a missing text).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod/mini';
import { OnboardingLinkRequest, RenewLinkRequest, ResultRequest, ResumeLinkRequest } from '../../worker/contract';
import { PARSE, zodEnglish, zodIssues } from '../../worker/lib/errors';
import { PartnerRecord } from '../../worker/partners/partner';
import { CreateVerificationRequest, IdempotencyHeader, ListQuery } from '../../worker/server-api/schemas';
import { OnboardingUrlRequest, ScannedDocument, SearchEntity, SearchQuery } from '../../worker/vendors/idv/schemas';

const english = z.locales.en().localeError;

const BAD: [z.ZodMiniType, unknown][] = [
  [OnboardingLinkRequest, {}],
  [OnboardingLinkRequest, { name: [], phone: 'x', consent: 'yes', customerRef: '  ', sendSMS: 1, lang: 5, extra: 1, other: 2 }],
  [OnboardingLinkRequest, { name: { familyName: 7 }, dateOfBirth: null, phone: { code: '+61' }, consent: false }],
  [ResultRequest, { returned: 'maybe', checkId: '', token: ' ', session: 4 }],
  [ResumeLinkRequest, { clientSecret: '', lang: 'x'.repeat(40) }],
  [RenewLinkRequest, { session: [] }],
  [CreateVerificationRequest, { customerRef: 1, expiresInSeconds: 1.5, sms: 'no' }],
  [ListQuery, { limit: '0', status: 'done', cursor: 'x'.repeat(65) }],
  [IdempotencyHeader, { 'Idempotency-Key': 'short' }],
  [PartnerRecord, { v: 2, origins: [], webhookUrl: 'x'.repeat(2049), updatedAt: 'x'.repeat(41), serverKeyHashes: [] }],
  [PartnerRecord, { v: 1, origins: Array(21).fill('https://a.example') }],
  [OnboardingUrlRequest, { entity: { gender: 'X', entityType: 'ROBOT', name: {} }, sendSMS: 'yes' }],
  [SearchEntity, { gender: 'X', entityType: 'ROBOT' }],
  [ScannedDocument, { scanSide: 'C', scanPageNum: -1 }],
  [SearchQuery, { child: 'yes', resultLimit: 'ten' }],
];

describe('zod/mini with our English texts', () => {
  it('says what zod’s English locale says for every problem without a message of ours', () => {
    const codes = new Set<string>();
    for (const [schema, input] of BAD) {
      const seen: z.core.$ZodRawIssue[] = [];
      const parsed = schema.safeParse(input, {
        reportInput: true,
        error: (issue) => {
          seen.push(issue);
          return zodEnglish(issue);
        },
      });
      assert.equal(parsed.success, false, JSON.stringify(input));
      // zod words the issues when they are first read (then the map above runs).
      assert.ok(parsed.error.issues.length > 0);
      for (const issue of seen) {
        codes.add(issue.code ?? 'custom');
        const locale = english(issue);
        const theirs = typeof locale === 'string' ? locale : (locale?.message ?? 'Invalid input');
        assert.equal(zodEnglish(issue) ?? 'Invalid input', theirs, `${issue.code} at ${issue.path?.join('.')}`);
      }
    }
    // The corpus reaches every kind of issue zodEnglish words (so this test checks something).
    for (const code of ['invalid_type', 'invalid_value', 'too_small', 'too_big', 'invalid_format', 'unrecognized_keys']) {
      assert.ok(codes.has(code), `the corpus raises no ${code}`);
    }
  });

  it('puts them in the ErrorObject issues, naming the field, without the value', () => {
    const result = ResultRequest.safeParse({ returned: 'maybe', checkId: '' }, PARSE);
    assert.equal(result.success, false);
    // `checkId` is a legacy top-level return parameter (docs/decisions.md): checked after the named fields.
    assert.deepEqual(zodIssues(result.error), [
      { issue: 'Invalid option: expected one of "success"|"error"', issueLocation: 'returned' },
      { issue: 'Too small: expected string to have >=1 characters', issueLocation: 'checkId' },
    ]);
    const link = OnboardingLinkRequest.safeParse({ name: { familyName: 'Lee' }, customerRef: ' ', consent: true }, PARSE);
    assert.ok(!link.success);
    assert.deepEqual(
      zodIssues(link.error).find((i) => i.issueLocation === 'customerRef'),
      { issue: 'Too small: expected string to have >=1 characters', issueLocation: 'customerRef' },
    );
  });

  it('without them zod/mini would say only "Invalid input" (what the texts above replace)', () => {
    const result = ResultRequest.safeParse({ returned: 'maybe' }, { reportInput: true });
    assert.ok(!result.success);
    assert.deepEqual(zodIssues(result.error), [{ issue: 'Invalid input', issueLocation: 'returned' }]);
  });
});
