/**
 * The browser-facing API: what `<kyc-onboard>` (or any partner code) sends to
 * the worker and gets back. The widget imports these *types* only
 * (`import type`), which costs it no bytes; the worker validates with the
 * schemas. Rules are docs/api.md's "Browser-facing API".
 */
import * as z from 'zod/mini';
import { dateOfBirthProblem, MAX_AGE_YEARS, type DateOfBirthProblem } from '../rules/date-of-birth';
import { isVisiblyBlank, nameCharacterProblem, normaliseName, type NameCharacterProblem } from '../rules/name';
import type { VendorId as AdapterVendorId, VendorResult as AdapterVendorResult } from './vendors/adapter';
import { MAX_RETURN_KEYS, MAX_RETURN_VALUE, RETURN_KEY } from './vendors/return-params';

/** The outcome in our words, and the vendors (docs/vendors.md): the widget reads them from here. */
// Restated as aliases, not re-exported: the widget package's types are generated from this file's own declarations
// (scripts/build-package.mjs), which expands an alias and cannot follow a re-export.
/** The vendors this build knows. */
export type VendorId = AdapterVendorId;
/** The outcome in our words (docs/vendors.md). */
export type VendorResult = { [K in keyof AdapterVendorResult]: AdapterVendorResult[K] };

const MAX_NAME = 100;

/**
 * Control characters, bidi embeddings/overrides/isolates (which can make text
 * read differently from what it is, e.g. in the vendor's portal) and lone
 * surrogates (not text at all) have no place in a name, a reference or a
 * token. Zero-width joiners and the bidi marks LRM/RLM/ALM stay allowed:
 * real names need them.
 */
// Matching control characters is the point of this pattern.
const UNSAFE_TEXT =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const safeText = (s: string) => !UNSAFE_TEXT.test(s);
const SAFE_TEXT_MESSAGE = 'contains characters that are not allowed';

/** What the person reads for each problem of `rules/name.ts`. */
const NAME_CHARACTER_MESSAGES: Record<NameCharacterProblem, string> = {
  invisible: 'contains invisible characters',
  'mark-without-base': 'has an accent or mark with no letter before it',
  'private-use': 'contains private-use characters',
  noncharacter: 'contains characters that are not text',
};

/** A name part: NFC, trimmed, whitespace collapsed (rules/name.ts), then checked. */
const namePart = (max = MAX_NAME) =>
  z.pipe(
    z.pipe(z.string(), z.transform(normaliseName)),
    z.string().check(
      z.maxLength(max, `must be at most ${max} characters`),
      z.refine(safeText, SAFE_TEXT_MESSAGE),
      z.refine((s) => s === '' || !isVisiblyBlank(s), 'must contain letters a reader can see'),
      z.superRefine((s, ctx) => {
        const problem = nameCharacterProblem(s);
        if (problem) ctx.addIssue({ code: 'custom', message: NAME_CHARACTER_MESSAGES[problem] });
      }),
    ),
  );

/** An optional name part: blank after trimming counts as absent. */
const optionalNamePart = z.pipe(
  z.optional(namePart()),
  z.transform((s: string | undefined) => (s ? s : undefined)),
);

/** What the person reads for each problem of `rules/date-of-birth.ts`. */
const DATE_OF_BIRTH_MESSAGES: Record<DateOfBirthProblem, string> = {
  format: 'must be a date written YYYY-MM-DD',
  'not-a-date': 'is not a real calendar date',
  'not-past': 'must be in the past',
  'too-old': `must be at most ${MAX_AGE_YEARS} years ago`,
};

/** A client secret as the page passes it on (its form is checked where it is used). */
const sessionToken = () => z.string().check(z.minLength(1, 'is required'), z.maxLength(4096, 'is too long'));
const clientSecret = () => z.string().check(z.minLength(1, 'is required'), z.maxLength(200, 'is too long'));

export const OnboardingLinkRequest = z.strictObject({
  name: z.strictObject({
    givenName: optionalNamePart,
    middleName: optionalNamePart,
    familyName: z.pipe(namePart(), z.string().check(z.minLength(1, 'is required'))),
  }),
  dateOfBirth: z.string().check(
    z.superRefine((value, ctx) => {
      const problem = dateOfBirthProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: DATE_OF_BIRTH_MESSAGES[problem] });
    }),
  ),
  phone: z.strictObject({
    code: z.string().check(z.trim(), z.regex(/^\+[1-9]\d{0,3}$/, 'must be a country code with a leading +, e.g. +61')),
    number: z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(32, 'is too long')),
  }),
  consent: z.literal(true, { error: 'must be true' }),
  sendSMS: z.optional(z.boolean()),
  /**
   * Continue on another device: the answer's `url` is then a single-use
   * handoff URL on the worker (with `qr`, its QR code), and the hosted flow
   * ends on the worker's own "All done" page instead of `returnUrl`.
   */
  handoff: z.optional(z.boolean()),
  customerRef: z.optional(
    z.string().check(z.trim(), z.minLength(1), z.maxLength(100, 'must be at most 100 characters'), z.refine(safeText, SAFE_TEXT_MESSAGE)),
  ),
  /** The widget's language (a BCP 47 tag): the phone's pages of a handoff or texted link speak it. */
  lang: z.optional(
    z
      .string()
      .check(z.maxLength(35, 'is too long'), z.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as fr or fr-CA')),
  ),
  returnUrl: z.optional(z.string().check(z.maxLength(2048, 'is too long'))),
  turnstileToken: z.optional(z.string().check(z.maxLength(2048, 'is too long'))),
  /**
   * A verification the partner's server started (`POST /v1/verifications`):
   * the link is made for it, with the server's `customerRef` (so a
   * `customerRef` here is refused).
   */
  clientSecret: z.optional(clientSecret()),
  /**
   * The person's next attempt (the verification is `requires_input`): the
   * previous answer's `session` with the corrected details; the same
   * verification and vendor entity get a new link.
   */
  session: z.optional(sessionToken()),
  /**
   * The widget's form key (32 random bytes, base64url): it keeps the form's values in this tab encrypted with it,
   * and the worker keeps the key in the verification's record (never the values) so that the form comes back
   * filled after the trip to the hosted flow. Only the session holder gets it back, while the verification is open.
   */
  formKey: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 bytes in base64url'))),
});
export type OnboardingLinkRequest = z.input<typeof OnboardingLinkRequest>;

/**
 * Resume a verification the partner's server started, whose link exists:
 * the client secret alone. The same link again while it is valid (no second
 * vendor link), a new one for the same entity once it has expired.
 */
export const ResumeLinkRequest = z.extend(z.pick(OnboardingLinkRequest, { lang: true, returnUrl: true, turnstileToken: true }), {
  clientSecret: clientSecret(),
});
export type ResumeLinkRequest = z.input<typeof ResumeLinkRequest>;

/**
 * A new link for a verification whose link expired: the previous answer's
 * `session` instead of the person's details. The same vendor entity and the
 * same verification, the same way to the phone. A texted link is sent again
 * only when the person asks ("Send again"): `sendSMS` and the `phone` number,
 * the same code.
 */
export const RenewLinkRequest = z.extend(
  z.pick(OnboardingLinkRequest, { lang: true, returnUrl: true, turnstileToken: true, sendSMS: true }),
  { session: sessionToken(), phone: z.optional(OnboardingLinkRequest.shape.phone) },
);
export type RenewLinkRequest = z.input<typeof RenewLinkRequest>;

export interface OnboardingLinkAnswer {
  /**
   * The hosted onboarding flow; send the browser there. Absent for a texted
   * link (`sendSMS`): the starting device never gets it, only `claimCode`.
   */
  url?: string;
  /**
   * With `sendSMS` or `handoff`: the 6-digit code to show on the starting
   * device (beside the QR code); the phone's return page asks for it before
   * the outcome is credited.
   */
  claimCode?: string;
  /** When `url` stops working, as the vendor wrote it (ISO 8601 in the sandbox). */
  urlExpiry: string;
  /** The vendor's status of the link request. */
  status: string;
  /**
   * The names of what the vendor's hosted flow appends to the return URL (besides `kyc_return`): bring their
   * values back as `/api/result`'s `hint` (and take them out of the address bar). Absent: none.
   */
  returnKeys?: string[];
  /** True when the vendor was asked to text the link. */
  smsSent: boolean;
  /** Opaque signed token; hand it back to `/api/result`. */
  session: string;
  /** `vrf_` + a ULID: names this verification in result tokens and webhooks. */
  verificationId: string;
  /** With `handoff`: the handoff URL as a QR code (modules row by row, one bit each, base64), for the widget to draw. */
  qr?: { size: number; modules: string };
}

/** One value the hosted flow appended to the return URL. */
const returnValue = () =>
  z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_RETURN_VALUE, 'is too long'), z.refine(safeText, SAFE_TEXT_MESSAGE));

/**
 * `hint`: what the hosted flow appended to the return URL, under the names the link answer's `returnKeys` gave;
 * opaque to everyone but the vendor's adapter. Any other field is a string, taken as the hint too: widgets served
 * before `hint` existed send the return's parameters at the top level (docs/decisions.md); `/api/result` checks
 * their names and number as `hint`'s.
 */
const ResultFields = z.catchall(
  z.object({
    /** Missing is answered 401 by the route, like an expired or tampered one. */
    session: z.optional(z.string().check(z.maxLength(4096, 'is too long'))),
    /** Instead of `session`: the client secret of a verification the partner's server started. */
    clientSecret: z.optional(clientSecret()),
    hint: z.optional(
      z.record(z.string(), returnValue()).check(
        z.superRefine((hint, ctx) => {
          const keys = Object.keys(hint);
          for (const key of keys.filter((k) => !RETURN_KEY.test(k))) {
            ctx.issues.push({
              code: 'custom',
              message: 'must be a parameter name (a letter, then letters, digits or _)',
              path: [key],
              input: key,
            });
          }
          if (keys.length > MAX_RETURN_KEYS) {
            ctx.issues.push({ code: 'custom', message: `has more than ${MAX_RETURN_KEYS} parameters`, input: hint });
          }
        }),
      ),
    ),
    /** Back from the hosted flow on this device: how it ended (`kyc_return`), counted once for the operator. */
    returned: z.optional(z.enum(['success', 'error'])),
  }),
  returnValue(),
);
/** A `__proto__` key is refused as unknown, as a strict object refuses it (a catchall would drop it silently). */
const noPrototypeKey = z.unknown().check(
  z.superRefine((input, ctx) => {
    if (input !== null && typeof input === 'object' && Object.hasOwn(input, '__proto__'))
      ctx.issues.push({ code: 'unrecognized_keys', keys: ['__proto__'], input: input as Record<string, unknown> });
  }),
);
export const ResultRequest = z.pipe(noPrototypeKey, ResultFields);
export type ResultRequest = Pick<z.input<typeof ResultFields>, 'session' | 'clientSecret' | 'hint' | 'returned'>;

/**
 * The person takes back the link handed to a phone ("Use this device instead", "Change my number"): the previous
 * answer's `session`.
 */
export const WithdrawLinkRequest = z.strictObject({
  /** Missing is answered 401 by the route, like an expired or tampered one. */
  session: z.optional(z.string().check(z.maxLength(4096, 'is too long'))),
});
export type WithdrawLinkRequest = z.input<typeof WithdrawLinkRequest>;

export interface WithdrawLinkAnswer {
  verificationId: string;
  /** `canceled`: the link credits nobody now. `final`: the person finished first (ask `/api/result` for the token). */
  status: 'canceled' | 'final' | 'expired';
}

export interface ResultAnswer {
  /**
   * The deprecated check status: one value while the check runs (and while it waits for the next attempt), the
   * vendor's final word once final.
   * Deprecated: decide from `status` and `result`.
   */
  checkStatus: string;
  verificationId: string;
  /** Once final: the outcome in our words, whichever vendor (`result.outcome`: `verified`, `failed`, `inconclusive`). */
  result?: VendorResult;
  /** Once a link was made: the vendor the verification is with (it never changes). */
  vendor?: VendorId;
  /**
   * Asked with a `clientSecret`: `created` (no link yet: show the form),
   * `open` (a link is out: resume it), or `final`. A canceled or expired
   * verification is a 409 `VERIFICATION_CLOSED` instead. With a session or a
   * client secret: `requires_input` when the last attempt ended in a way a
   * person may fix by trying again and another is allowed (no token; a new link for the
   * same verification is the next attempt). With a session: `open`, `requires_input` or `final`.
   */
  status?: 'created' | 'open' | 'requires_input' | 'final';
  /** With `requires_input`: how the last attempt ended. */
  lastAttempt?: { checkStatus: string };
  /** Asked with the session, while open or `requires_input`: the form key its link request brought (see `OnboardingLinkRequest`). */
  formKey?: string;
  /**
   * Once the status is final: a signed result token (ES256 JWS) for the
   * partner's server to verify against `/.well-known/jwks.json`. A browser's
   * word alone must never be trusted.
   */
  resultToken?: string;
  /** "Continue on my phone": true once the phone opened the handoff link (the first device says so). */
  phoneOpened?: true;
  /**
   * A handed-off or texted link: true once the phone is done (it came back
   * to the worker's page, and entered its code where one is asked) while the
   * vendor is still checking; the first device stops waiting for the phone.
   */
  phoneReturned?: true;
}

/**
 * `GET /api/settings`: what the widget of the asking page's partner starts with. Nothing personal, nothing secret.
 * `defaultCountry` (ISO 3166 alpha-2): the country code field's default when the widget's language names no region.
 * `minAge` (whole years): the youngest person the partner may verify (absent: no minimum).
 * `sms`: whether this deployment can text a link at all; `smsCountries` (ISO 3166 alpha-2): where it may text one.
 */
export interface SettingsAnswer {
  defaultCountry?: string;
  minAge?: number;
  sms?: boolean;
  smsCountries?: string[];
}

export interface RuokAnswer {
  status: 'OK';
  /** What works but loses something (a binding missing, e.g. EVENTS_QUEUE): the vendor is fine, the operator should look. */
  warnings?: { issue: string; issueLocation: string }[];
}

/** The spec's ErrorObject, as every error of the worker is shaped. */
export interface ErrorObject {
  errorCode: string;
  errorMsg: string;
  issues: { issue: string; issueLocation: string }[];
  requestId: string;
}
