/**
 * A hosted-flow link made through a vendor's adapter, from the product's
 * words: whose link it is (a new person's details, or the vendor subject a
 * first link made, with or without corrected details), the phone, how the
 * link travels (this device, a QR code / copied link, or a text the vendor
 * sends) and where the flow sends the person back. The link route, its
 * renewal and the next attempt all make their links here; the vendor's
 * request shape is its adapter's (`worker/vendors/<id>/adapter.ts`).
 */
import type { ParsedPhone } from '../lib/phone';
import { use, type LinkRequest, type VendorAdapter, type VendorRef } from './adapter';

/** A person as the widget gives them (the browser contract's `name` and `dateOfBirth`). */
export interface PersonDetails {
  name: { givenName?: string | undefined; middleName?: string | undefined; familyName: string };
  /** YYYY-MM-DD */
  dateOfBirth: string;
}

export interface LinkAsk {
  /** Ours: the vendor keeps it as its reference where it has one. */
  verificationId: string;
  /** Our request's id, for the vendor's records. */
  requestId: string;
  /** The partner's reference of the person, when there is one. */
  customerRef?: string | undefined;
  /**
   * The vendor's subject the link is for (a returning person's entity, a
   * renewal's or a next attempt's), when the vendor reuses one
   * (`entityReuse`); a vendor without it makes a new subject per link.
   */
  subject?: string | undefined;
  /** The person's details (a first link, a next attempt); none: the subject alone (a renewal). */
  person?: PersonDetails | undefined;
  /** The person's phone: the number texted, or the one the flow starts with. */
  phone?: ParsedPhone | undefined;
  /** How the link leaves this device: handed off (a QR code, a copied link) or texted by the vendor; none: this device. */
  handoff?: 'link' | 'sms' | undefined;
  /** Where the hosted flow sends the person back, by how it ended (`handoff/urls.ts` `returnUrls`). */
  returnTo: { success: string; error: string };
}

/** The partner's settings a texted link is made with (a `Partner` has them). */
export interface LinkSettings {
  smsSenderName?: string | undefined;
  smsTemplateId?: string | undefined;
}

/** The link the vendor made, as the routes keep and answer it. */
export interface MadeLink {
  /** The hosted flow's URL ('' for a texted link: this device never gets it). */
  url: string;
  /** When the URL stops working (ISO 8601; capped to LINK_MAX_SECONDS by the adapter). */
  urlExpiry: string;
  /** The vendor's own word for the link (the browser's deprecated `status`). */
  status: string;
  /** The vendor's subject the link is for (idv: its entity; stripe: the session). */
  entityId: string;
  ref: VendorRef;
}

/** Asks the vendor for the link; its failures are the adapter's errors, for the caller to answer (`vendorApiError`). */
export async function makeLink(adapter: VendorAdapter, settings: LinkSettings, ask: LinkAsk): Promise<MadeLink> {
  const { name, dateOfBirth } = ask.person ?? {};
  const phone = ask.phone ? { code: ask.phone.code, national: ask.phone.national } : undefined;
  const request: LinkRequest = {
    verificationId: ask.verificationId,
    returnUrl: ask.returnTo.success,
    errorUrl: ask.returnTo.error,
    requestId: ask.requestId,
    ...(ask.customerRef ? { customerRef: ask.customerRef } : {}),
    ...(name && dateOfBirth
      ? {
          person: {
            name: {
              ...(name.givenName ? { givenName: name.givenName } : {}),
              ...(name.middleName ? { middleName: name.middleName } : {}),
              familyName: name.familyName,
            },
            dateOfBirth,
          },
        }
      : {}),
    ...(phone ? { phone } : {}),
    ...(ask.subject !== undefined ? { subject: ask.subject } : {}),
  };
  const made =
    ask.handoff === 'sms'
      ? await use(adapter, 'sendLink')(request, {
          ...(settings.smsSenderName ? { senderName: settings.smsSenderName } : {}),
          ...(settings.smsTemplateId ? { templateId: settings.smsTemplateId } : {}),
        })
      : await adapter.createLink(request);
  return {
    url: made.url ?? '',
    urlExpiry: new Date(made.expiresAt).toISOString(),
    status: made.vendorStatus ?? '',
    entityId: made.ref.subject,
    ref: made.ref,
  };
}
