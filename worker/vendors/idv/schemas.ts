/**
 * The vendor's data model (the vendor's IDV service interface, sections 2,
 * 4 and 7) in zod: the one place that knows its shapes. The worker's client
 * parses every vendor answer with these; the sandbox validates every request
 * with them. Objects are loose (`z.looseObject`): the spec says which fields
 * exist, not that others never appear, and a vendor adding a field must not
 * break us. Types are JSON types; "date" fields are strings.
 */
import * as z from 'zod/mini';

const str = z.string();
const date = z.string(); // YYYY-MM-DD per spec; checked where it matters
const dateTime = z.string();

export const KeyValuePair = z.looseObject({
  kvpKey: z.optional(str),
  kvpType: z.optional(str),
  kvpValue: z.optional(str),
});

export const EntityFlag = z.looseObject({
  flag: z.optional(str),
  value: z.optional(z.number().check(z.int())),
});

export const PersonalName = z.looseObject({
  familyName: str, // required by the spec
  givenName: z.optional(str),
  middleName: z.optional(str),
  honourific: z.optional(str),
  displayName: z.optional(str),
});

export const DateOfBirth = z.looseObject({
  dateOfBirth: z.optional(date),
  yearOfBirth: z.optional(str),
  country: z.optional(str),
  locality: z.optional(str),
  unstructuredDateOfBirth: z.optional(str),
});

export const Address = z.looseObject({
  addressId: z.optional(str),
  addressType: z.optional(str),
  buildingName: z.optional(str),
  careOf: z.optional(str),
  unitNumber: z.optional(str),
  streetNumber: z.optional(str),
  streetName: z.optional(str),
  streetType: z.optional(str),
  suburb: z.optional(str),
  town: z.optional(str),
  region: z.optional(str),
  state: z.optional(str),
  postalCode: z.optional(str),
  country: str, // required by the spec
  startDate: z.optional(date),
  endDate: z.optional(date),
  longForm: z.optional(str),
  unstructuredLongForm: z.optional(str),
  extraData: z.optional(z.array(KeyValuePair)),
});

export const ScannedDocument = z.looseObject({
  scanDocId: z.optional(str),
  scanData: z.optional(str),
  scanMIME: z.optional(str),
  scanFilename: z.optional(str),
  scanType: z.optional(str),
  scanSide: z.optional(z.enum(['F', 'B'])),
  scanPageNum: z.optional(z.number().check(z.int(), z.gte(0))),
  scanCreated: z.optional(dateTime),
  scanDataRetrievalState: z.optional(str),
  ScanDelete: z.optional(z.boolean()),
});

export const IdentityDocument = z.looseObject({
  documentId: z.optional(str),
  idType: str, // required by the spec
  idSubType: z.optional(str),
  country: str, // required by the spec
  region: z.optional(str),
  idNumber: z.optional(str),
  idIssued: z.optional(date),
  idExpiry: z.optional(date),
  documentStatus: z.optional(str),
  createdFromScan: z.optional(z.boolean()),
  manuallyModified: z.optional(z.boolean()),
  docScan: z.optional(z.array(ScannedDocument)),
  extraData: z.optional(z.array(KeyValuePair)),
});

const CodeDescription = z.looseObject({ code: z.optional(str), description: z.optional(str) });
const Effective = { effectiveFrom: z.optional(dateTime), effectiveTo: z.optional(dateTime) };

export const Abr = z.looseObject({
  abn: z.optional(str),
  acn: z.optional(str),
  description: z.optional(str),
  name: z.optional(str),
  status: z.optional(str),
  statusEffectiveFrom: z.optional(str),
  type: z.optional(str),
  typeCode: z.optional(str),
  lastUpdated: z.optional(dateTime),
  registeredDate: z.optional(dateTime),
  updatedDate: z.optional(dateTime),
  addresses: z.optional(z.array(z.looseObject({ ...Effective, postcode: z.optional(str), stateCode: z.optional(str) }))),
  businessNames: z.optional(z.array(z.looseObject({ ...Effective, name: z.optional(str), type: z.optional(str) }))),
  charityEndorsements: z.optional(z.array(z.looseObject({ ...Effective, type: z.optional(str) }))),
  charityTypes: z.optional(z.array(z.looseObject({ ...Effective, description: z.optional(str) }))),
  dgrEndorsements: z.optional(z.array(z.looseObject({ endorsedFrom: z.optional(dateTime), endorsedTo: z.optional(dateTime) }))),
  gst: z.optional(z.array(z.looseObject(Effective))),
  historicalChanges: z.optional(
    z.array(
      z.looseObject({
        date: z.optional(dateTime),
        businessName: z.optional(z.array(str)),
        entityStatus: z.optional(z.array(str)),
        goodsAndServicesTax: z.optional(z.array(str)),
        mainBusinessPhysicalAddress: z.optional(z.array(str)),
        mainName: z.optional(z.array(str)),
        mainTradingName: z.optional(z.array(str)),
      }),
    ),
  ),
});

export const OrganisationData = z.looseObject({
  registeredName: z.optional(str),
  kycCustomerType: z.optional(str),
  normalisedLegalStatus: z.optional(str),
  adverseCreditDataPresent: z.optional(z.boolean()),
  disclosingEntityIndicator: z.optional(z.boolean()),
  includesNonBeneficiallyHeld: z.optional(z.boolean()),
  ownershipResolved: z.optional(z.boolean()),
  aliases: z.optional(z.array(str)),
  lastCheckDate: z.optional(date),
  reviewDate: z.optional(date),
  startDate: z.optional(date),
  class: z.optional(CodeDescription),
  subclass: z.optional(CodeDescription),
  subType: z.optional(CodeDescription),
  type: z.optional(CodeDescription),
  status: z.optional(CodeDescription),
  industryCodes: z.optional(z.array(CodeDescription)),
  industryDeclarations: z.optional(z.array(z.looseObject({ description: z.optional(str), language: z.optional(str) }))),
  contactDetails: z.optional(
    z.looseObject({ email: z.optional(str), faxNumber: z.optional(str), telephoneNumber: z.optional(str), websiteURL: z.optional(str) }),
  ),
  legalFormDetails: z.optional(
    z.looseObject({
      basis: z.optional(str),
      capital: z.optional(str),
      comments: z.optional(str),
      control: z.optional(str),
      incorp: z.optional(str),
      partner: z.optional(str),
      responsibility: z.optional(str),
      stocks: z.optional(str),
    }),
  ),
  registration: z.optional(
    z.looseObject({
      countryIso: z.optional(str),
      date: z.optional(date),
      number: z.optional(str),
      previousNumber: z.optional(str),
      registryCode: z.optional(str),
      registryDescription: z.optional(str),
      state: z.optional(str),
      unstructuredDate: z.optional(str),
      unstructuredFoundationDate: z.optional(str),
    }),
  ),
  blockingReasons: z.optional(
    z.array(
      z.looseObject({
        type: z.optional(str),
        description: z.optional(str),
        candidates: z.optional(
          z.array(
            z.looseObject({
              address: z.optional(str),
              code: z.optional(str),
              countryIso: z.optional(str),
              registeredName: z.optional(str),
              registryDescription: z.optional(str),
              subdivision: z.optional(str),
            }),
          ),
        ),
      }),
    ),
  ),
  shareStructure: z.optional(
    z.array(
      z.looseObject({
        amountDue: z.optional(z.number()),
        amountPaid: z.optional(z.number()),
        classCode: z.optional(str),
        classTitle: z.optional(str),
        docNumber: z.optional(str),
        docNumberQualifier: z.optional(str),
        sharesIssued: z.optional(z.number().check(z.int())),
        status: z.optional(str),
      }),
    ),
  ),
  registries: z.optional(z.looseObject({ abr: z.optional(Abr) })),
});

export const ENTITY_TYPES = ['INDIVIDUAL', 'TRUST', 'ORGANISATION'] as const;
export const GENDERS = ['U', 'F', 'M', 'O'] as const;

/** Entity as the vendor stores and returns it. */
export const Entity = z.looseObject({
  entityId: z.optional(str),
  entityType: z.optional(str),
  entityProfile: z.optional(str),
  name: z.optional(PersonalName),
  dateOfBirth: z.optional(DateOfBirth),
  gender: z.optional(str),
  addresses: z.optional(z.array(Address)),
  identityDocs: z.optional(z.array(IdentityDocument)),
  extraData: z.optional(z.array(KeyValuePair)),
  flags: z.optional(z.array(EntityFlag)),
  organisationData: z.optional(OrganisationData),
});

/** The search request narrows entityType and gender to the spec's enums (4.3). */
export const SearchEntity = z.extend(Entity, {
  entityType: z.optional(z.enum(ENTITY_TYPES)),
  gender: z.optional(z.enum(GENDERS)),
});

export const RequestedDocument = z.looseObject({ documentType: z.optional(str), subType: z.optional(str) });

export const ErrorObject = z.looseObject({
  errorCode: z.optional(str),
  errorMsg: z.optional(str),
  issues: z.optional(z.array(z.looseObject({ issue: z.optional(str), issueLocation: z.optional(str) }))),
  requestId: z.optional(str),
});

// ---- 4.1 onboarding link ----
export const OnboardingUrlRequest = z.looseObject({
  applicationRef: z.optional(str),
  channelRef: z.optional(str),
  consent: z.optional(z.boolean()),
  customerRef: z.optional(str),
  entity: z.optional(Entity),
  flowId: z.optional(str),
  requestedDocuments: z.optional(z.array(RequestedDocument)),
  sendSMS: z.optional(z.boolean()),
  phoneNumber: z.optional(str),
  phoneCode: z.optional(str),
  recipientName: z.optional(str),
  senderName: z.optional(str),
  messageTemplateId: z.optional(str),
  successRedirectURL: z.optional(str),
  errorRedirectURL: z.optional(str),
});
export const OnboardingUrlResponse = z.looseObject({
  entity: Entity,
  status: str,
  url: str,
  urlExpiry: str,
});

// ---- 4.2 result ----
export const ResultRequest = z.looseObject({
  checkId: z.optional(str),
  entity: z.optional(Entity),
  provider: z.optional(str),
  reprocessResult: z.optional(z.boolean()),
  token: z.optional(str),
});
export const ResultResponse = z.looseObject({
  checkStatus: str,
  entity: z.optional(Entity),
});

// ---- 4.3 entity search ----
export const SearchQuery = z.object({
  child: z.optional(z.enum(['true', 'false'])),
  searchType: z.optional(str),
  onlyEntityIds: z.optional(z.enum(['true', 'false'])),
  resultLimit: z.optional(z.string().check(z.regex(/^\d+$/))),
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
  confidence: z.optional(z.number()),
  entity: z.optional(Entity),
});
export const SearchResponse = z.looseObject({
  requestId: str,
  entitySearchResults: z.optional(z.array(SearchResult)),
  totalEntitiesMatched: z.optional(z.number().check(z.int())),
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

export const CHECKING = 'CHECKING';
