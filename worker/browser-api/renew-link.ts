/**
 * A new vendor link for a verification that has one, for the same vendor
 * entity (`entity: {entityId}`) and the same verificationId, the same way it
 * went before (this device, a QR code / copied link, or a text), with the
 * same code (docs/handoff.md "Cross-device handoff"):
 *
 * - `POST /api/onboarding-link` with a `session` instead of the person's
 *   details (`renewLink`): its link expired. A texted link goes again only
 *   when the person asks ("Send again"): then the body carries the phone
 *   number and `sendSMS`, and nothing else personal.
 * - the person's next attempt (`next-attempt.ts`): the corrected details
 *   update the same entity.
 *
 * The link a renewal replaces can still be completed (an earlier text, a
 * flow still open on a phone): its check stays one the worker asks about.
 */
import type { Context } from 'hono';
import type * as z from 'zod/mini';
import type { OnboardingLinkAnswer, OnboardingLinkRequest, RenewLinkRequest } from '../contract';
import { returnKeysOf } from '../vendors/return-params';
import type { AppEnv } from '../app-env';
import { ApiError, validationError } from '../lib/errors';
import { clientIp } from '../lib/limits';
import type { ParsedPhone } from '../lib/phone';
import { MAX_RENEWALS, vendorOf, type Renewal, type Verification } from '../verifications/verification';
import { hasLink, renewable, requiresInput, shownLinkExpiry } from '../verifications/lifecycle';
import { currentCheck } from '../verifications/verification-store';
import { isReturnOrigin, normaliseOrigin } from '../lib/origins';
import { trustedOwnOrigin } from '../config';
import { qrModules } from '../handoff/qr';
import { randomToken } from '../lib/random';
import { createSession, requireSession, sessionInvalid, sessionOwns } from './session';
import { sessionSecret } from '../lib/session-secret';
import { verifyTurnstile } from '../lib/turnstile';
import { isAdapterError, vendorApiError } from '../vendors/errors';
import { adapterOf } from '../vendors/for-partner';
import { letGoAtVendor } from '../verifications/at-vendor';
import { makeLink, type MadeLink } from '../vendors/link';
import { keptUrl, urlToOpen } from '../vendors/hosted-url';
import { handoffUrls, returnUrls } from '../handoff/urls';
import { checkedPhone, sameNumber, spendText } from './phone-check';

const ended = (issue: string) =>
  new ApiError(409, 'VERIFICATION_ENDED', 'This verification can no longer get a new link. Please start again.', [
    { issue, issueLocation: 'session' },
  ]);

type Details = Pick<z.output<typeof OnboardingLinkRequest>, 'name' | 'dateOfBirth'>;

/** What a new link is made with besides the verification. */
export interface Relink {
  lang?: string | undefined;
  returnUrl?: string | undefined;
  turnstileToken?: string | undefined;
  /** A next attempt: the corrected details, for the same entity. */
  details?: Details;
  /** A next attempt: what the request resumed it with (the field an error names). */
  by?: 'session' | 'clientSecret';
  /** The number to text (a texted link's "Send again", or its next attempt). */
  phone?: ParsedPhone;
  /** A next attempt's form key (the widget keeps the corrected values encrypted with it). */
  formKey?: string;
}

export async function renewLink(c: Context<AppEnv>, body: z.output<typeof RenewLinkRequest>) {
  const session = await requireSession(c, body.session);
  const v = await c.var.ports.verifications.execute(session.vid, { type: 'read' });
  if (!sessionOwns(session, v)) throw sessionInvalid();
  const allowed = renewable(v);
  if (allowed === 'ended') throw ended('belongs to a verification that has ended');
  if (allowed === 'renewals') throw ended(`has had its ${MAX_RENEWALS} new links`);
  const texted = v.handoff?.kind === 'sms';
  if (texted !== (body.sendSMS === true)) {
    throw texted
      ? new ApiError(409, 'RENEWAL_NOT_ALLOWED', 'A texted link is sent again only when the person asks (Send again).', [
          { issue: 'belongs to a texted link: send it again with sendSMS and the phone number', issueLocation: 'session' },
        ])
      : validationError([{ issue: 'is only for a texted link', issueLocation: 'sendSMS' }]);
  }
  let phone: ParsedPhone | undefined;
  if (texted) {
    if (!body.phone) throw validationError([{ issue: 'is required to send the link again', issueLocation: 'phone' }]);
    phone = checkedPhone(c.var.config, body.phone, true);
  }
  const { phone: _typed, ...rest } = body;
  return relink(c, v, { ...rest, ...(phone ? { phone } : {}) });
}

/** What a renewal's answer says of its link: a new one (`MadeLink`) or the same one again. */
type AnsweredLink = Pick<MadeLink, 'url' | 'urlExpiry' | 'status' | 'entityId'>;

/** A link with less than this left is renewed (the QR code on screen would not last the person's walk to the phone). */
export const RENEW_BEFORE_MS = 60_000;

/**
 * Whether a renewal needs no new link: the link is good for RENEW_BEFORE_MS
 * more, not used (a QR or copied link not opened, no phone back), and this is
 * no next attempt. A texted link is never this way: its renewal is "Send
 * again", which texts (to the same number only).
 */
function linkStillGood(v: Verification, now: number, r: Relink): boolean {
  if (requiresInput(v) || v.linkExpiresAt - now < RENEW_BEFORE_MS) return false;
  const h = v.handoff;
  if (h?.kind === 'link') return !h.opened && !h.browserKey;
  // A link made on the page returns to that page: asked for another page, it is a new link.
  const samePage = v.link?.returnTo === undefined || r.returnUrl === undefined || r.returnUrl === v.link.returnTo;
  return !h && v.link !== undefined && v.flowReturnedAt === undefined && samePage;
}

/**
 * The renewal's answer for a link still good: the same link (the phone's single-use page, or this device's hosted
 * flow: for a vendor whose URL is one-time, a fresh one asked for now), a new session. Undefined when the vendor
 * offers that flow no more (its session moved on): a new link is made instead.
 */
async function sameLink(c: Context<AppEnv>, v: Verification & { entityId: string }, now: number, lang: string | undefined) {
  const h = v.handoff;
  const own = trustedOwnOrigin(c.var.config, c.req.url)!;
  const expiry = new Date(v.linkExpiresAt).toISOString();
  let link: AnsweredLink;
  if (h?.kind === 'link') link = { url: '', urlExpiry: expiry, status: v.link?.status ?? 'CREATED', entityId: v.entityId };
  else {
    const url = await freshUrl(c, v, v.link!.url);
    if (url === undefined) return undefined;
    link = { ...v.link!, url, entityId: v.entityId };
  }
  const handoffUrl = h?.kind === 'link' ? handoffUrls(own, v.id, lang).open(h.openToken) : undefined;
  return renewedAnswer(c, v, link, { handoffUrl, linkExpiresAt: v.linkExpiresAt, now });
}

/** Where the hosted flow sends the person back when it has no handoff: the server's page, the widget's, or the partner's origin. */
const returnPage = (v: Verification, r: Relink) => v.server?.returnUrl ?? r.returnUrl ?? v.partnerOrigin;

/**
 * The new link, stored through the lifecycle's renewal (or, in
 * `requires_input`, its next attempt), and the answer. Checked first, then
 * made in the verification's renewal turn (`beginRenewal`): one new link at
 * a time, each made from the record as the one before left it.
 */
export async function relink(c: Context<AppEnv>, asked: Verification & { entityId: string }, r: Relink) {
  const partner = c.get('partner')!;
  const store = c.var.ports.verifications;
  // The configuration guard refused the request unless the worker knows its own origin.
  const own = trustedOwnOrigin(c.var.config, c.req.url)!;
  if (!asked.handoff && !isReturnOrigin(own, partner, normaliseOrigin(returnPage(asked, r)))) {
    throw validationError([{ issue: 'must be a page on an allowed origin', issueLocation: 'returnUrl' }]);
  }
  if (asked.handoff?.kind === 'sms' && !r.phone)
    throw validationError([{ issue: 'is required for a texted link', issueLocation: 'phone' }]);
  if (asked.handoff?.kind === 'sms' && r.phone) await sameNumber(c.env, c.var.ports, asked.handoff.to, r.phone);
  await verifyTurnstile(
    c.var.config,
    partner.turnstileSecret,
    r.turnstileToken,
    clientIp(c.req.raw.headers),
    new URL(asked.partnerOrigin).hostname,
  );
  const turn = await store.execute(asked.id, { type: 'renewal.begin' });
  try {
    const v = turn.v;
    if (!v || !hasLink(v) || renewable(v) === 'ended') throw ended('belongs to a verification that has ended');
    if (renewable(v) === 'renewals') throw ended(`has had its ${MAX_RENEWALS} new links`);
    if (r.details && !requiresInput(v)) {
      // Another request started the next attempt meanwhile (the same form sent twice).
      throw new ApiError(409, 'ATTEMPT_NOT_ALLOWED', 'This verification is not waiting for a new attempt.', [
        { issue: 'belongs to a verification whose next attempt has started', issueLocation: r.by ?? 'session' },
      ]);
    }
    // A link still good for a while is answered again, with no vendor call (issue 40: renewals made links nobody needed).
    if (!r.phone && linkStillGood(v, turn.at ?? c.var.clock(), r)) {
      const same = await sameLink(c, v, c.var.clock(), r.lang);
      if (same) return same;
    }
    return await newLink(c, v, r, own, turn.fence);
  } finally {
    await store.execute(asked.id, { type: 'renewal.end', fence: turn.fence });
  }
}

/** The new link itself, in the caller's renewal turn: the check it replaces asked for, the vendor's link made and stored. */
async function newLink(c: Context<AppEnv>, v: Verification & { entityId: string }, r: Relink, own: string, fence: number) {
  const env = c.env;
  const store = c.var.ports.verifications;
  const h = v.handoff;
  const pages = handoffUrls(own, v.id, r.lang);
  // A spent return secret (a phone already came back) is replaced.
  const returnSecret = h ? (h.browserKey ? randomToken() : h.returnSecret) : undefined;
  const returnTo = returnSecret !== undefined ? pages.back(returnSecret) : returnPage(v, r);
  const texted = h?.kind === 'sms';
  if (texted && r.phone) await spendText(env, c.var.ports, r.phone, v.id);
  // A renewal replaces a link the person may still complete (an earlier text, a flow open on a phone):
  // its check, as the vendor names it, stays askable. A next attempt is about its new link alone.
  const replacedCheck = requiresInput(v) ? undefined : await currentCheck(env, c.var.ports, v);
  const link = await vendorLink(c, v, r, returnTo);

  const now = c.var.clock();
  const openToken = h?.kind === 'link' ? randomToken() : undefined;
  // A one-time hosted URL is answered, never kept (`vendors/hosted-url.ts`).
  const kept = keptUrl(adapterOf(c, c.get('partner')!, vendorOf(v)), link.url);
  const renewal: Renewal = {
    urlExpiry: link.urlExpiry,
    ...(link.entityId !== v.entityId ? { subject: link.entityId } : {}),
    ...(replacedCheck !== undefined ? { replacedCheck } : {}),
    ...(openToken && returnSecret ? { link: { openToken, hostedUrl: kept, returnSecret } } : {}),
    ...(texted && returnSecret ? { sms: { returnSecret } } : {}),
    // A server-started verification keeps its link, so a resume answers the new one.
    ...(v.link && !h
      ? {
          sameDevice: {
            url: kept,
            urlExpiry: link.urlExpiry,
            status: link.status,
            ...(v.link.returnTo !== undefined ? { returnTo: returnTo } : {}),
          },
        }
      : {}),
    ...(r.formKey ? { formKey: r.formKey } : {}),
  };
  const after = await store.execute(v.id, { type: 'renew', renewal, fence });
  if (!after) {
    // Ended (or its turn lapsed) while the link was made: nothing keeps it, so it is let go at the vendor.
    if (link.entityId !== v.entityId) await letGoAtVendor(c, c.get('partner')!, vendorOf(v), link.entityId, v.id);
    throw ended('belongs to a verification that has ended');
  }
  return renewedAnswer(c, v, link, { handoffUrl: openToken ? pages.open(openToken) : undefined, linkExpiresAt: after.linkExpiresAt, now });
}

/**
 * Where this device's hosted flow is now: the kept link, or for a vendor whose URL is one-time a fresh one
 * (undefined once it offers none). A vendor fault is answered as the link route's.
 */
export async function freshUrl(c: Context<AppEnv>, v: Verification, kept: string): Promise<string | undefined> {
  try {
    return await urlToOpen(adapterOf(c, c.get('partner')!, vendorOf(v)), v, kept);
  } catch (err) {
    throw isAdapterError(err) ? vendorApiError(err, 'link') : err;
  }
}

/**
 * The vendor's new link, with the verification's own vendor (never another:
 * it keeps the vendor of its first link), for the same subject where the
 * vendor reuses one (a vendor without: a new subject, e.g. a new session):
 * only a next attempt's corrected details travel again.
 */
async function vendorLink(c: Context<AppEnv>, v: Verification & { entityId: string }, r: Relink, returnTo: string): Promise<MadeLink> {
  const partner = c.get('partner')!;
  try {
    const adapter = adapterOf(c, partner, vendorOf(v));
    return await makeLink(adapter, partner, {
      verificationId: v.id,
      requestId: c.get('requestId'),
      customerRef: v.customerRef,
      ...(adapter.capabilities.entityReuse ? { subject: v.entityId } : {}),
      person: r.details,
      phone: r.phone,
      handoff: v.handoff?.kind,
      returnTo: returnUrls(returnTo),
    });
  } catch (err) {
    throw isAdapterError(err) ? vendorApiError(err, 'link') : err;
  }
}

/** The answer of a new link: its URL (the worker's page for the phone; a texted link none), the same code as before, a new session. */
async function renewedAnswer(
  c: Context<AppEnv>,
  v: Verification & { entityId: string },
  link: AnsweredLink,
  { handoffUrl, linkExpiresAt, now }: { handoffUrl: string | undefined; linkExpiresAt: Verification['linkExpiresAt']; now: number },
) {
  const texted = v.handoff?.kind === 'sms';
  const answer: OnboardingLinkAnswer = {
    // A texted link: this device never gets the hosted URL, only the code.
    ...(texted ? {} : { url: handoffUrl ?? link.url }),
    // The same code as before: the first device keeps showing it, and every earlier link wants it.
    ...(v.handoff?.code ? { claimCode: v.handoff.code } : {}),
    urlExpiry: shownLinkExpiry(link.urlExpiry, linkExpiresAt),
    status: link.status,
    ...(texted || handoffUrl ? {} : returnKeysOf(vendorOf(v))),
    smsSent: texted,
    session: await createSession(
      (await sessionSecret(c.env, c.var.ports))!,
      // The link's subject: the same entity, or a vendor's new one (its session).
      { entityId: link.entityId, verificationId: v.id, origin: v.partnerOrigin, partnerId: c.get('partner')!.id },
      now,
    ),
    verificationId: v.id,
    ...(handoffUrl ? { qr: qrModules(handoffUrl) } : {}),
  };
  return c.json(answer);
}
