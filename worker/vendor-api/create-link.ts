/**
 * A hosted-flow link made with the vendor, from the product's words: whose
 * link it is (a new person's details, or the vendor entity a first link made,
 * with or without corrected details), the phone, how the link travels (this
 * device, a QR code / copied link, or a text the vendor sends) and where the
 * flow sends the person back. The vendor's request shape (spec 4.1,
 * `onboarding-url`) is built here and nowhere else: the link route, its
 * renewal and the next attempt all make their links through `createLink`.
 * This is the seam a vendor adapter's `createLink(...)` takes over.
 */
import type { ParsedPhone } from '../lib/phone';
import type { VendorClient } from './client';
import type { OnboardingUrlRequest } from './schemas';

/** A person as the widget gives them (the browser contract's `name` and `dateOfBirth`). */
export interface PersonDetails {
  name: { givenName?: string | undefined; middleName?: string | undefined; familyName: string };
  /** YYYY-MM-DD */
  dateOfBirth: string;
}

/**
 * Whose link: a new person (`person` alone), a person the vendor knows already
 * whose details are updated (`entityId` and `person`: a server-started
 * verification's returning entity, a next attempt), or the same entity again
 * (`entityId` alone: a renewal).
 */
export type LinkSubject =
  { entityId: string; person?: PersonDetails | undefined } | { entityId?: string | undefined; person: PersonDetails };

export type LinkRequest = LinkSubject & {
  /** Our request's id, for the vendor's records. */
  requestId: string;
  /** The partner's reference of the person, when there is one. */
  customerRef?: string | undefined;
  /** The person's phone: the number texted, or the one the flow starts with. */
  phone?: ParsedPhone | undefined;
  /** How the link leaves this device: handed off (a QR code, a copied link) or texted by the vendor; none: this device. */
  handoff?: 'link' | 'sms' | undefined;
  /** Where the hosted flow sends the person back, by how it ended (`handoff/urls.ts` `returnUrls`). */
  returnTo: { success: string; error: string };
};

/** The partner's settings a link is made with (a `Partner` has them): its vendor flow, and a text's sender and template. */
export interface LinkSettings {
  flowId?: string | undefined;
  smsSenderName?: string | undefined;
  smsTemplateId?: string | undefined;
}

/** The link the vendor made. */
export interface MadeLink {
  /** The hosted flow's URL. */
  url: string;
  /** When the URL stops working, as the vendor wrote it. */
  urlExpiry: string;
  /** The vendor's status of the link's check. */
  status: string;
  /** The vendor's entity the link is for, when its answer named one. */
  entityId?: string | undefined;
}

/** The vendor's entity for a link: the person's details (for the entity it names, if any), or the entity alone. */
function entityOf(link: LinkSubject): NonNullable<OnboardingUrlRequest['entity']> {
  // Only a person's details travel: a renewal names the entity the first link made, and nothing else.
  if (!link.person) return { entityId: link.entityId };
  const { name, dateOfBirth } = link.person;
  return {
    ...(link.entityId !== undefined ? { entityId: link.entityId } : {}),
    entityType: 'INDIVIDUAL',
    name: {
      ...(name.givenName ? { givenName: name.givenName } : {}),
      ...(name.middleName ? { middleName: name.middleName } : {}),
      familyName: name.familyName,
    },
    dateOfBirth: { dateOfBirth },
  };
}

/** The vendor's onboarding-url request (spec 4.1) for a link. */
export function vendorLinkRequest(settings: LinkSettings, link: LinkRequest): OnboardingUrlRequest {
  const texted = link.handoff === 'sms';
  return {
    applicationRef: link.requestId,
    consent: true,
    ...(link.customerRef ? { customerRef: link.customerRef } : {}),
    entity: entityOf(link),
    ...(settings.flowId ? { flowId: settings.flowId } : {}),
    sendSMS: texted,
    ...(link.phone ? { phoneCode: link.phone.code, phoneNumber: link.phone.national } : {}),
    ...(texted
      ? {
          ...(settings.smsSenderName ? { senderName: settings.smsSenderName } : {}),
          ...(settings.smsTemplateId ? { messageTemplateId: settings.smsTemplateId } : {}),
        }
      : {}),
    successRedirectURL: link.returnTo.success,
    errorRedirectURL: link.returnTo.error,
  };
}

/** Asks the vendor for the link. Its failures are the client's `VendorError`s, for the caller to answer. */
export async function createLink(
  vendor: Pick<VendorClient, 'onboardingUrl'>,
  settings: LinkSettings,
  link: LinkRequest,
): Promise<MadeLink> {
  const made = await vendor.onboardingUrl(vendorLinkRequest(settings, link));
  return { url: made.url, urlExpiry: made.urlExpiry, status: made.status, entityId: made.entity.entityId };
}
