/**
 * The `idv` adapter: the vendor of the IDV service interface, through its
 * typed client (client.ts). Its subject is the vendor's entity
 * (a renewal and a next attempt are new links for the same entity); it
 * texts its own links, searches entities, and has a health route; it
 * cannot cancel or redact at the vendor and signs no events.
 */
import { ADAPTER_OPERATION, createVendorClient, VendorError } from './client';
import type { Entity, OnboardingUrlRequest } from './schemas';
import {
  cappedExpiry,
  CapabilityUnavailableError,
  VendorMismatchError,
  type AdapterContext,
  type Capabilities,
  type LinkRequest,
  type SmsRequest,
  type VendorAdapter,
  type VendorLink,
  type VendorRef,
} from '../adapter';
import { personFrom } from './person';
import { answerOf, CHECKING } from './mapping';

export interface IdvSettings {
  /** `{base_url}` (KYC_BASE_URL, or the sandbox's root). */
  baseUrl: string;
  apiKey: string;
  customerId: string;
  childId?: string;
  channel: string;
  searchPath: string;
  flowId?: string;
  provider?: string;
  /** False while the sandbox is the vendor. */
  livemode: boolean;
}

export function idvAdapter(ctx: AdapterContext, settings: IdvSettings): VendorAdapter {
  const client = createVendorClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    customerId: settings.customerId,
    ...(settings.childId ? { childId: settings.childId } : {}),
    channel: settings.channel,
    timeoutMs: ctx.timeoutMs,
    searchPath: settings.searchPath,
    fetch: ctx.fetch,
    now: ctx.now,
    ...(ctx.onCall ? { onCall: (op, outcome, ms) => ctx.onCall!(ADAPTER_OPERATION[op], outcome, ms) } : {}),
  });
  const capabilities: Capabilities = {
    sms: true,
    entitySearch: true,
    entityReuse: true,
    cancelAtVendor: false,
    redactAtVendor: false,
    vendorWebhooks: false,
    person: true,
  };

  function body(request: LinkRequest, sms?: SmsRequest): OnboardingUrlRequest {
    const p = request.person;
    const phone = request.phone ?? p?.phone;
    const entity: Entity | undefined = p
      ? {
          ...(request.subject !== undefined ? { entityId: request.subject } : {}),
          entityType: 'INDIVIDUAL',
          name: {
            ...(p.name.givenName ? { givenName: p.name.givenName } : {}),
            ...(p.name.middleName ? { middleName: p.name.middleName } : {}),
            familyName: p.name.familyName,
          },
          dateOfBirth: { dateOfBirth: p.dateOfBirth },
        }
      : request.subject !== undefined
        ? { entityId: request.subject }
        : undefined;
    return {
      ...(request.requestId ? { applicationRef: request.requestId } : {}),
      consent: true,
      ...(request.customerRef ? { customerRef: request.customerRef } : {}),
      ...(entity ? { entity } : {}),
      ...(settings.flowId ? { flowId: settings.flowId } : {}),
      sendSMS: sms !== undefined,
      ...(phone ? { phoneCode: phone.code, phoneNumber: phone.national } : {}),
      ...(sms?.senderName ? { senderName: sms.senderName } : {}),
      ...(sms?.templateId ? { messageTemplateId: sms.templateId } : {}),
      successRedirectURL: request.returnUrl,
      errorRedirectURL: request.errorUrl ?? request.returnUrl,
    };
  }

  async function link(request: LinkRequest, sms?: SmsRequest): Promise<VendorLink> {
    // A refusal names our fields (the client translates the vendor's).
    const answer = await client.onboardingUrl(body(request, sms));
    const entityId = answer.entity.entityId;
    if (!entityId) throw new VendorError({ kind: 'bad-answer', status: 200 });
    // A link for another entity than the one asked for is never this verification's.
    if (request.subject !== undefined && entityId !== request.subject) throw new VendorMismatchError('idv');
    const named = (answer as { checkId?: unknown }).checkId;
    return {
      ref: { vendor: 'idv', subject: entityId, ...(typeof named === 'string' ? { check: named } : {}), linkedAt: ctx.now() },
      ...(sms ? {} : { url: answer.url }),
      expiresAt: cappedExpiry(ctx, Date.parse(answer.urlExpiry)),
      smsSent: sms !== undefined,
      vendorStatus: answer.status,
    };
  }

  /** One result call about the ref's entity (its newest check, or the attempt's own when the vendor named it). */
  async function ask(ref: VendorRef) {
    try {
      return await client.result({
        ...(ref.check !== undefined ? { checkId: ref.check } : {}),
        entity: { entityId: ref.subject },
        ...(settings.provider ? { provider: settings.provider } : {}),
      });
    } catch (err) {
      // "Not found" for a check we started means the vendor has nothing yet (the person has not begun).
      if (err instanceof VendorError && err.fault.kind === 'status' && err.fault.status === 404) return undefined;
      throw err;
    }
  }

  return {
    id: 'idv',
    livemode: settings.livemode,
    capabilities,

    createLink: (request) => link(request),

    sendLink: (request, sms) => {
      if (!(request.phone ?? request.person?.phone)) throw new CapabilityUnavailableError('idv', 'sms');
      return link(request, sms);
    },

    async latestResult(ref, options = {}) {
      const answer = await ask(ref);
      if (!answer) return answerOf(CHECKING, ref.check);
      const named = (answer as { checkId?: unknown }).checkId;
      const check = typeof named === 'string' ? named : undefined;
      const about = answer.entity?.entityId;
      // A final word is credited only when it names this entity; "not finished" may name none.
      if (about !== undefined ? about !== ref.subject : answer.checkStatus !== CHECKING && answer.checkStatus !== '')
        throw new VendorMismatchError('idv');
      // An earlier attempt's check, still the entity's newest: this attempt has no answer yet.
      if (check !== undefined && (options.priorChecks?.includes(check) || (ref.check !== undefined && check !== ref.check)))
        return answerOf(CHECKING, check);
      return answerOf(answer.checkStatus, check);
    },

    async health() {
      const started = ctx.now();
      const answer = await client.ruok();
      if (answer.status !== 'OK') throw new VendorError({ kind: 'bad-answer', status: 200 });
      return { ok: true, ms: ctx.now() - started };
    },

    async search(criteria, options) {
      const answer = await client.search(criteria as Entity, {
        ...(options.child !== undefined ? { child: options.child } : {}),
        ...(options.onlyEntityIds ? { onlyEntityIds: true } : {}),
        ...(options.limit !== undefined ? { resultLimit: options.limit } : {}),
      });
      return (answer.entitySearchResults ?? [])
        .filter((r) => typeof r.entityId === 'string' && r.entityId !== '')
        .map((r) => ({
          entityId: r.entityId,
          ...(typeof r.confidence === 'number' ? { confidence: r.confidence } : {}),
          ...(!options.onlyEntityIds && r.entity ? { person: personFrom({ ...r.entity, entityId: r.entityId }) } : {}),
        }));
    },

    async person(ref) {
      const answer = await ask(ref);
      if (!answer?.entity) throw new VendorError({ kind: 'status', status: 404 });
      if (answer.entity.entityId !== ref.subject) throw new VendorMismatchError('idv');
      return personFrom({ ...answer.entity, entityId: ref.subject });
    },
  };
}
