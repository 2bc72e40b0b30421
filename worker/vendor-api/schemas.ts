/**
 * The vendor's data model (the vendor's IDV service interface, sections 2,
 * 4 and 7) in zod: the one place that knows its shapes. The worker's client
 * parses every vendor answer with these; the sandbox validates every request
 * with them. Objects are loose (`z.looseObject`): the spec says which fields
 * exist, not that others never appear, and a vendor adding a field must not
 * break us. Types are JSON types; "date" fields are strings.
 */
import * as z from 'zod';

const str = z.string();
const date = z.string(); // YYYY-MM-DD per spec; checked where it matters
const dateTime = z.string();

export const KeyValuePair = z.looseObject({
  kvpKey: str.optional(),
  kvpType: str.optional(),
  kvpValue: str.optional(),
});

export const EntityFlag = z.looseObject({
  flag: str.optional(),
  value: z.number().int().optional(),
});

export const PersonalName = z.looseObject({
  familyName: str, // required by the spec
  givenName: str.optional(),
  middleName: str.optional(),
  honourific: str.optional(),
  displayName: str.optional(),
});

export const DateOfBirth = z.looseObject({
  dateOfBirth: date.optional(),
  yearOfBirth: str.optional(),
  country: str.optional(),
  locality: str.optional(),
  unstructuredDateOfBirth: str.optional(),
});

export const Address = z.looseObject({
  addressId: str.optional(),
  addressType: str.optional(),
  buildingName: str.optional(),
  careOf: str.optional(),
  unitNumber: str.optional(),
  streetNumber: str.optional(),
  streetName: str.optional(),
  streetType: str.optional(),
  suburb: str.optional(),
  town: str.optional(),
  region: str.optional(),
  state: str.optional(),
  postalCode: str.optional(),
  country: str, // required by the spec
  startDate: date.optional(),
  endDate: date.optional(),
  longForm: str.optional(),
  unstructuredLongForm: str.optional(),
  extraData: z.array(KeyValuePair).optional(),
});

export const ScannedDocument = z.looseObject({
  scanDocId: str.optional(),
  scanData: str.optional(),
  scanMIME: str.optional(),
  scanFilename: str.optional(),
  scanType: str.optional(),
  scanSide: z.enum(['F', 'B']).optional(),
  scanPageNum: z.number().int().min(0).optional(),
  scanCreated: dateTime.optional(),
  scanDataRetrievalState: str.optional(),
  ScanDelete: z.boolean().optional(),
});

export const IdentityDocument = z.looseObject({
  documentId: str.optional(),
  idType: str, // required by the spec
  idSubType: str.optional(),
  country: str, // required by the spec
  region: str.optional(),
  idNumber: str.optional(),
  idIssued: date.optional(),
  idExpiry: date.optional(),
  documentStatus: str.optional(),
  createdFromScan: z.boolean().optional(),
  manuallyModified: z.boolean().optional(),
  docScan: z.array(ScannedDocument).optional(),
  extraData: z.array(KeyValuePair).optional(),
});

const CodeDescription = z.looseObject({ code: str.optional(), description: str.optional() });
const Effective = { effectiveFrom: dateTime.optional(), effectiveTo: dateTime.optional() };

export const Abr = z.looseObject({
  abn: str.optional(),
  acn: str.optional(),
  description: str.optional(),
  name: str.optional(),
  status: str.optional(),
  statusEffectiveFrom: str.optional(),
  type: str.optional(),
  typeCode: str.optional(),
  lastUpdated: dateTime.optional(),
  registeredDate: dateTime.optional(),
  updatedDate: dateTime.optional(),
  addresses: z.array(z.looseObject({ ...Effective, postcode: str.optional(), stateCode: str.optional() })).optional(),
  businessNames: z.array(z.looseObject({ ...Effective, name: str.optional(), type: str.optional() })).optional(),
  charityEndorsements: z.array(z.looseObject({ ...Effective, type: str.optional() })).optional(),
  charityTypes: z.array(z.looseObject({ ...Effective, description: str.optional() })).optional(),
  dgrEndorsements: z.array(z.looseObject({ endorsedFrom: dateTime.optional(), endorsedTo: dateTime.optional() })).optional(),
  gst: z.array(z.looseObject(Effective)).optional(),
  historicalChanges: z
    .array(
      z.looseObject({
        date: dateTime.optional(),
        businessName: z.array(str).optional(),
        entityStatus: z.array(str).optional(),
        goodsAndServicesTax: z.array(str).optional(),
        mainBusinessPhysicalAddress: z.array(str).optional(),
        mainName: z.array(str).optional(),
        mainTradingName: z.array(str).optional(),
      }),
    )
    .optional(),
});

export const OrganisationData = z.looseObject({
  registeredName: str.optional(),
  kycCustomerType: str.optional(),
  normalisedLegalStatus: str.optional(),
  adverseCreditDataPresent: z.boolean().optional(),
  disclosingEntityIndicator: z.boolean().optional(),
  includesNonBeneficiallyHeld: z.boolean().optional(),
  ownershipResolved: z.boolean().optional(),
  aliases: z.array(str).optional(),
  lastCheckDate: date.optional(),
  reviewDate: date.optional(),
  startDate: date.optional(),
  class: CodeDescription.optional(),
  subclass: CodeDescription.optional(),
  subType: CodeDescription.optional(),
  type: CodeDescription.optional(),
  status: CodeDescription.optional(),
  industryCodes: z.array(CodeDescription).optional(),
  industryDeclarations: z.array(z.looseObject({ description: str.optional(), language: str.optional() })).optional(),
  contactDetails: z
    .looseObject({ email: str.optional(), faxNumber: str.optional(), telephoneNumber: str.optional(), websiteURL: str.optional() })
    .optional(),
  legalFormDetails: z
    .looseObject({
      basis: str.optional(),
      capital: str.optional(),
      comments: str.optional(),
      control: str.optional(),
      incorp: str.optional(),
      partner: str.optional(),
      responsibility: str.optional(),
      stocks: str.optional(),
    })
    .optional(),
  registration: z
    .looseObject({
      countryIso: str.optional(),
      date: date.optional(),
      number: str.optional(),
      previousNumber: str.optional(),
      registryCode: str.optional(),
      registryDescription: str.optional(),
      state: str.optional(),
      unstructuredDate: str.optional(),
      unstructuredFoundationDate: str.optional(),
    })
    .optional(),
  blockingReasons: z
    .array(
      z.looseObject({
        type: str.optional(),
        description: str.optional(),
        candidates: z
          .array(
            z.looseObject({
              address: str.optional(),
              code: str.optional(),
              countryIso: str.optional(),
              registeredName: str.optional(),
              registryDescription: str.optional(),
              subdivision: str.optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
  shareStructure: z
    .array(
      z.looseObject({
        amountDue: z.number().optional(),
        amountPaid: z.number().optional(),
        classCode: str.optional(),
        classTitle: str.optional(),
        docNumber: str.optional(),
        docNumberQualifier: str.optional(),
        sharesIssued: z.number().int().optional(),
        status: str.optional(),
      }),
    )
    .optional(),
  registries: z.looseObject({ abr: Abr.optional() }).optional(),
});

export const ENTITY_TYPES = ['INDIVIDUAL', 'TRUST', 'ORGANISATION'] as const;
export const GENDERS = ['U', 'F', 'M', 'O'] as const;

/** Entity as the vendor stores and returns it. */
export const Entity = z.looseObject({
  entityId: str.optional(),
  entityType: str.optional(),
  entityProfile: str.optional(),
  name: PersonalName.optional(),
  dateOfBirth: DateOfBirth.optional(),
  gender: str.optional(),
  addresses: z.array(Address).optional(),
  identityDocs: z.array(IdentityDocument).optional(),
  extraData: z.array(KeyValuePair).optional(),
  flags: z.array(EntityFlag).optional(),
  organisationData: OrganisationData.optional(),
});

/** The search request narrows entityType and gender to the spec's enums (4.3). */
export const SearchEntity = Entity.extend({
  entityType: z.enum(ENTITY_TYPES).optional(),
  gender: z.enum(GENDERS).optional(),
});

export const RequestedDocument = z.looseObject({ documentType: str.optional(), subType: str.optional() });

export const ErrorObject = z.looseObject({
  errorCode: str.optional(),
  errorMsg: str.optional(),
  issues: z.array(z.looseObject({ issue: str.optional(), issueLocation: str.optional() })).optional(),
  requestId: str.optional(),
});

// ---- 4.1 onboarding link ----
export const OnboardingUrlRequest = z.looseObject({
  applicationRef: str.optional(),
  channelRef: str.optional(),
  consent: z.boolean().optional(),
  customerRef: str.optional(),
  entity: Entity.optional(),
  flowId: str.optional(),
  requestedDocuments: z.array(RequestedDocument).optional(),
  sendSMS: z.boolean().optional(),
  phoneNumber: str.optional(),
  phoneCode: str.optional(),
  recipientName: str.optional(),
  senderName: str.optional(),
  messageTemplateId: str.optional(),
  successRedirectURL: str.optional(),
  errorRedirectURL: str.optional(),
});
export const OnboardingUrlResponse = z.looseObject({
  entity: Entity,
  status: str,
  url: str,
  urlExpiry: str,
});

// ---- 4.2 result ----
export const ResultRequest = z.looseObject({
  checkId: str.optional(),
  entity: Entity.optional(),
  provider: str.optional(),
  reprocessResult: z.boolean().optional(),
  token: str.optional(),
});
export const ResultResponse = z.looseObject({
  checkStatus: str,
  entity: Entity.optional(),
});

// ---- 4.3 entity search ----
export const SearchQuery = z.object({
  child: z.enum(['true', 'false']).optional(),
  searchType: str.optional(),
  onlyEntityIds: z.enum(['true', 'false']).optional(),
  resultLimit: z.string().regex(/^\d+$/).optional(),
});
export interface SearchOptions {
  child?: boolean;
  searchType?: string;
  onlyEntityIds?: boolean;
  resultLimit?: number;
}
/** A search result element. The spec does not show its field names; these are ours (docs/sandbox.md). */
export const SearchResult = z.looseObject({
  entityId: str,
  confidence: z.number().optional(),
  entity: Entity.optional(),
});
export const SearchResponse = z.looseObject({
  requestId: str,
  entitySearchResults: z.array(SearchResult).optional(),
  totalEntitiesMatched: z.number().int().optional(),
});

// ---- 4.4 health ----
export const RuokResponse = z.looseObject({ status: str });

export type KeyValuePair = z.infer<typeof KeyValuePair>;
export type EntityFlag = z.infer<typeof EntityFlag>;
export type PersonalName = z.infer<typeof PersonalName>;
export type DateOfBirth = z.infer<typeof DateOfBirth>;
export type Address = z.infer<typeof Address>;
export type ScannedDocument = z.infer<typeof ScannedDocument>;
export type IdentityDocument = z.infer<typeof IdentityDocument>;
export type OrganisationData = z.infer<typeof OrganisationData>;
export type Entity = z.infer<typeof Entity>;
export type RequestedDocument = z.infer<typeof RequestedDocument>;
export type ErrorObject = z.infer<typeof ErrorObject>;
export type OnboardingUrlRequest = z.infer<typeof OnboardingUrlRequest>;
export type OnboardingUrlResponse = z.infer<typeof OnboardingUrlResponse>;
export type ResultRequest = z.infer<typeof ResultRequest>;
export type ResultResponse = z.infer<typeof ResultResponse>;
export type SearchResult = z.infer<typeof SearchResult>;
export type SearchResponse = z.infer<typeof SearchResponse>;
export type RuokResponse = z.infer<typeof RuokResponse>;

/** The check statuses the sandbox uses (docs/api.md "Check statuses"). */
export const FINAL_CHECK_STATUSES = [
  'CHECKED_SUCCESS_CLEAR',
  'CHECKED_SUCCESS_WITH_NOTES',
  'CHECKED_PARTIAL_SUCCESS',
  'CHECKED_FAILED',
  'NO_MATCH',
  'UNPROCESSABLE',
] as const;
export const CHECKING = 'CHECKING';
