/**
 * The vendor's onboarding-url request (spec 4.1) as `vendor-api/create-link.ts`
 * builds it from the product's words, for each way a link is made: a first
 * link on this device, a returning entity's texted link, a renewal, a next
 * attempt. Field for field (and in order) the requests the link route and the
 * renewal built inline before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLink, vendorLinkRequest, type LinkSettings } from '../../worker/vendor-api/create-link';
import { returnUrls } from '../../worker/handoff/urls';
import type { OnboardingUrlRequest } from '../../worker/vendor-api/schemas';

const phone = { e164: '+61412345678', code: '+61', national: '412345678', country: 'AU' };
const person = { name: { givenName: 'Ann', middleName: undefined, familyName: 'Lee' }, dateOfBirth: '1990-01-02' };
const settings: LinkSettings = { flowId: 'flow-1', smsSenderName: 'Shop', smsTemplateId: 'tpl-1' };
const back = returnUrls('https://shop.example/checkout?step=2');

describe('the vendor link request', () => {
  it('a first link on this device: the person, the phone, no text, back to the page marked success or error', () => {
    const request = vendorLinkRequest({}, { requestId: 'req-1', customerRef: 'cust-1', person, phone, returnTo: back });
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

  it("a returning entity's texted link: the entity updated, the partner's flow, sender and template", () => {
    const request = vendorLinkRequest(settings, {
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

  it('a renewal names the entity alone; a handed-off link is no text, and carries no phone unless given one', () => {
    const request = vendorLinkRequest(settings, {
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

  it("createLink asks the vendor once and answers in the product's words", async () => {
    const asked: OnboardingUrlRequest[] = [];
    const vendor = {
      onboardingUrl: async (body: OnboardingUrlRequest) => {
        asked.push(body);
        return { entity: { entityId: 'ent-9' }, status: 'WAITING', url: 'https://flow.example/x', urlExpiry: '2026-11-28T16:00:00Z' };
      },
    };
    const made = await createLink(vendor, settings, { requestId: 'req-4', entityId: 'ent-9', person, returnTo: back });
    assert.deepEqual(made, { url: 'https://flow.example/x', urlExpiry: '2026-11-28T16:00:00Z', status: 'WAITING', entityId: 'ent-9' });
    assert.deepEqual(asked, [vendorLinkRequest(settings, { requestId: 'req-4', entityId: 'ent-9', person, returnTo: back })]);
  });
});
