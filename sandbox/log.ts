/**
 * The sandbox's logger (it is another vendor, so it does not share the
 * worker's): one JSON line per event, with a request id and an error name
 * only, never a request value.
 */
export const log = {
  error: (event: string, fields: { requestId: string; error: string }) =>
    console.error(JSON.stringify({ level: 'error', event, requestId: fields.requestId, error: fields.error })),
};
