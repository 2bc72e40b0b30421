/**
 * The vendor's onboarding-url request (spec 4.1) as the product's link
 * (`vendors/link.ts` `makeLink`) has the `idv` adapter build it from the
 * product's words, for each way a link is made: a first link on this
 * device, a returning entity's texted link, a renewal, a next attempt. Field
 * for field (and in order) the requests the link route and the renewal built
 * inline before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeLink, type LinkAsk } from '../../worker/vendors/link';
import { idvAdapter } from '../../worker/vendors/idv/adapter';
import { returnUrls } from '../../worker/handoff/urls';
import type { OnboardingUrlRequest } from '../../worker/vendors/idv/schemas';

interface LinkSettings {
  flowId?: string;
  smsSenderName?: string;
  smsTemplateId?: string;
}

const NOW = Date.parse('2026-11-28T15:00:00Z');

/** The idv adapter for `settings`, its requests kept in `asked`, each answered with `answer`. */
function idvWith(settings: LinkSettings, asked: OnboardingUrlRequest[], answer: object) {
  return idvAdapter(
    {
      now: () => NOW,
      linkMaxMs: 86_400_000,
      timeoutMs: 5_000,
      fetch: async (request) => {
        asked.push((await request.json()) as OnboardingUrlRequest);
        return Response.json(answer);
      },
    },
    {
      baseUrl: 'https://vendor.example',
      apiKey: 'key',
      customerId: 'cust',
      channel: 'api',
      searchPath: '/search',
      ...(settings.flowId ? { flowId: settings.flowId } : {}),
      livemode: false,
    },
  );
}

type Ask = Omit<LinkAsk, 'verificationId' | 'subject'> & { entityId?: string };

/** The request the product's link sends the vendor for `ask`. */
async function vendorLinkRequest(settings: LinkSettings, { entityId, ...ask }: Ask): Promise<OnboardingUrlRequest> {
  const asked: OnboardingUrlRequest[] = [];
  const answer = {
    entity: { entityId: entityId ?? 'ent-new' },
    status: 'WAITING',
    url: 'https://flow.example/x',
    urlExpiry: '2026-11-28T16:00:00Z',
  };
  await makeLink(idvWith(settings, asked, answer), settings, {
    ...ask,
    verificationId: 'vrf_1',
    ...(entityId !== undefined ? { subject: entityId } : {}),
  });
  assert.equal(asked.length, 1);
  return asked[0]!;
}

const phone = { e164: '+61412345678', code: '+61', national: '412345678', country: 'AU' };
const person = { name: { givenName: 'Ann', middleName: undefined, familyName: 'Lee' }, dateOfBirth: '1990-01-02' };
const settings: LinkSettings = { flowId: 'flow-1', smsSenderName: 'Shop', smsTemplateId: 'tpl-1' };
const back = returnUrls('https://shop.example/checkout?step=2');

describe('the vendor link request', () => {
  it('a first link on this device: the person, the phone, no text, back to the page marked success or error', async () => {
    const request = await vendorLinkRequest({}, { requestId: 'req-1', customerRef: 'cust-1', person, phone, returnTo: back });
    assert.equal(
      JSON.stringify(request),
      JSON.stringify({
        applicationRef: 'req-1',
        consent: true,
        customerRef: 'cust-1',
        entity: { entityType: 'INDIVIDUAL', name: { givenName: 'Ann', familyName: 'Lee' }, dateOfBirth: { dateOfBirth: '1990-01-02' } },
        sendSMS: false,
        phoneCode: '+61',
        phoneNumber: '412345678',
        successRedirectURL: 'https://shop.example/checkout?step=2&kyc_return=success',
        errorRedirectURL: 'https://shop.example/checkout?step=2&kyc_return=error',
      }),
    );
  });

  it("a returning entity's texted link: the entity updated, the partner's flow, sender and template", async () => {
    const request = await vendorLinkRequest(settings, {
      requestId: 'req-2',
      entityId: 'ent-9',
      person: { name: { givenName: '', middleName: 'B', familyName: 'Lee' }, dateOfBirth: '1990-01-02' },
      phone,
      handoff: 'sms',
      returnTo: returnUrls('https://kyc.example/handoff/vrf_1/return?r=secret'),
    });
    assert.equal(
      JSON.stringify(request),
      JSON.stringify({
        applicationRef: 'req-2',
        consent: true,
        entity: {
          entityId: 'ent-9',
          entityType: 'INDIVIDUAL',
          name: { middleName: 'B', familyName: 'Lee' },
          dateOfBirth: { dateOfBirth: '1990-01-02' },
        },
        flowId: 'flow-1',
        sendSMS: true,
        phoneCode: '+61',
        phoneNumber: '412345678',
        senderName: 'Shop',
        messageTemplateId: 'tpl-1',
        successRedirectURL: 'https://kyc.example/handoff/vrf_1/return?r=secret&kyc_return=success',
        errorRedirectURL: 'https://kyc.example/handoff/vrf_1/return?r=secret&kyc_return=error',
      }),
    );
  });

  it('a renewal names the entity alone; a handed-off link is no text, and carries no phone unless given one', async () => {
    const request = await vendorLinkRequest(settings, {
      requestId: 'req-3',
      customerRef: '',
      entityId: 'ent-9',
      handoff: 'link',
      returnTo: back,
    });
    assert.deepEqual(request, {
      applicationRef: 'req-3',
      consent: true,
      entity: { entityId: 'ent-9' },
      flowId: 'flow-1',
      sendSMS: false,
      successRedirectURL: 'https://shop.example/checkout?step=2&kyc_return=success',
      errorRedirectURL: 'https://shop.example/checkout?step=2&kyc_return=error',
    } satisfies OnboardingUrlRequest);
  });

  it("makeLink asks the vendor once and answers in the product's words", async () => {
    const asked: OnboardingUrlRequest[] = [];
    const answer = { entity: { entityId: 'ent-9' }, status: 'WAITING', url: 'https://flow.example/x', urlExpiry: '2026-11-28T16:00:00Z' };
    const ask = { verificationId: 'vrf_1', requestId: 'req-4', subject: 'ent-9', person, returnTo: back };
    const { ref, ...made } = await makeLink(idvWith(settings, asked, answer), settings, ask);
    // The expiry as an instant (ISO 8601, capped to LINK_MAX_SECONDS by the adapter), no longer the vendor's own spelling.
    assert.deepEqual(made, { url: 'https://flow.example/x', urlExpiry: '2026-11-28T16:00:00.000Z', status: 'WAITING', entityId: 'ent-9' });
    assert.deepEqual(ref, { vendor: 'idv', subject: 'ent-9', linkedAt: NOW });
    assert.deepEqual(asked, [await vendorLinkRequest(settings, { requestId: 'req-4', entityId: 'ent-9', person, returnTo: back })]);
  });
});
