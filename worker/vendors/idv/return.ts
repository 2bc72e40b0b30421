/**
 * What idv's hosted flow appends to the return URL besides `kyc_return`: its
 * check id and the link's token. The widget and the phone's return page bring
 * them back as the return's opaque parameters (`vendors/return-params.ts`);
 * they only make the worker ask sooner, and the idv sandbox glue finds the
 * check by them.
 */
export const IDV_RETURN_KEYS = ['checkId', 'token'] as const;
