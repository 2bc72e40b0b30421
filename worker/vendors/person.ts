/**
 * The person's fields `/v1` shows, in our words: the one allow-list
 * (`server-api/schemas.ts` builds the `Person` schema from it). A vendor's
 * adapter fills them from its own record (idv: vendors/idv/person.ts takes
 * these lists), never passing anything else on. Here, with no imports, so
 * the adapter interface and `/v1`'s schemas both read it without a cycle.
 */
export const PERSON_FIELDS = {
  name: ['familyName', 'givenName', 'middleName', 'honourific', 'displayName'],
  dateOfBirth: ['dateOfBirth', 'yearOfBirth', 'country', 'locality', 'unstructuredDateOfBirth'],
  address: [
    'addressType',
    'buildingName',
    'careOf',
    'unitNumber',
    'streetNumber',
    'streetName',
    'streetType',
    'suburb',
    'town',
    'region',
    'state',
    'postalCode',
    'country',
    'startDate',
    'endDate',
    'longForm',
    'unstructuredLongForm',
  ],
  identityDoc: ['idType', 'country', 'idNumber'],
} as const;

type Texts<K extends readonly string[]> = { [P in K[number]]?: string | undefined };

/** The person as `/v1` shows it (the type of `server-api/schemas.ts` `Person`). */
export interface Person {
  entityId: string;
  name?: (Texts<typeof PERSON_FIELDS.name> & { familyName: string }) | undefined;
  dateOfBirth?: Texts<typeof PERSON_FIELDS.dateOfBirth> | undefined;
  addresses?: Texts<typeof PERSON_FIELDS.address>[] | undefined;
  identityDocs?: Texts<typeof PERSON_FIELDS.identityDoc>[] | undefined;
}
