/**
 * The route definitions of `/v1`, the one place each route is written:
 * method, path, what it takes and what it answers, errors included. The
 * router (`serve.ts`, used by `app.ts`) registers and validates from them,
 * and `openapi.ts` turns the same objects into the document served at
 * `GET /v1/openapi.json` (as `@hono/zod-openapi`'s `app.openapi(route,
 * handler)` does, without classic zod: docs/architecture.md says why).
 */
import type * as z from 'zod/mini';
import {
  Capabilities,
  CreatedVerification,
  CreateVerificationRequest,
  EntitySearchQuery,
  EntitySearchRequest,
  EntitySearchResults,
  ErrorObject,
  GetQuery,
  IdempotencyHeader,
  ListQuery,
  RedeliveredWebhook,
  Verification,
  VerificationIdParam,
  VerificationList,
} from './schemas';

export interface Answer {
  description: string;
  /** The JSON body; none for an answer without one. */
  schema?: z.ZodMiniType;
}

export interface RouteDefinition {
  method: 'get' | 'post';
  /** OpenAPI's form: `{verificationId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** `[]`: no server key needed. */
  security?: [];
  request?: {
    params?: z.ZodMiniObject;
    query?: z.ZodMiniObject;
    headers?: z.ZodMiniObject;
    /** Read by the handler (`readJson`: size, media type and JSON come first). */
    body?: z.ZodMiniType;
  };
  responses: Record<number, Answer>;
}

const json = (schema: z.ZodMiniType, description: string): Answer => ({ description, schema });
const error = (description: string) => json(ErrorObject, description);

/** The answers every authenticated route can give. */
const common = {
  401: error('`UNAUTHENTICATED`: the server key is missing, malformed or unknown (one answer for all three; `WWW-Authenticate: Bearer`).'),
  429: error('`RATE_LIMITED`: too many requests with this key; wait `Retry-After` seconds.'),
  500: error('`MISCONFIGURED` (the operator has to fix a setting) or `INTERNAL_ERROR`.'),
};
const notFound = error('`NOT_FOUND`: no such verification for your key (unknown, malformed, or another partner’s).');
const badInput = error('`VALIDATION_FAILED`: `issues` names each bad field; `INVALID_JSON`; `UNSUPPORTED_MEDIA_TYPE` is a 415.');

export const routes = {
  capabilities: {
    method: 'get',
    path: '/v1/capabilities',
    operationId: 'getCapabilities',
    summary: 'What your vendors can do',
    description:
      'Your vendors in priority order, each with what it offers, and whether failover is on. A request your vendor cannot serve is `501 CAPABILITY_UNAVAILABLE`, naming the vendor and the capability.',
    responses: { 200: json(Capabilities, 'Your vendors and their capabilities.'), ...common },
  },
  searchEntities: {
    method: 'post',
    path: '/v1/entities/search',
    operationId: 'searchEntities',
    summary: "Find a returning person among the vendor's entities",
    description: 'The entity only where one of your verifications holds it; else id and confidence. Nothing is logged or kept.',
    request: { query: EntitySearchQuery, body: EntitySearchRequest },
    responses: {
      200: json(EntitySearchResults, 'The matches, best first.'),
      400: badInput,
      501: error('`CAPABILITY_UNAVAILABLE`: your vendor has no entity search (`issues` names the vendor and `entitySearch`).'),
      502: error('`VENDOR_ERROR` or `VENDOR_REJECTED`.'),
      504: error('`VENDOR_TIMEOUT`.'),
      ...common,
    },
  },
  createVerification: {
    method: 'post',
    path: '/v1/verifications',
    operationId: 'createVerification',
    summary: 'Start a verification for one of your accounts',
    description:
      'Makes a verification with your `customerRef` and a `clientSecret` for the page. No vendor call yet: the link is made when the page uses the secret.',
    request: { headers: IdempotencyHeader, body: CreateVerificationRequest },
    responses: {
      200: json(
        Verification,
        'A replay (the same `Idempotency-Key`) of a verification that has since been canceled, completed or expired: the verification as it is now, without a client secret.',
      ),
      201: json(CreatedVerification, 'Created (or a replay of a verification still created or open: the same answer again).'),
      400: badInput,
      404: error('`NOT_FOUND`: `entityId` is not the entity of one of your verifications.'),
      409: error('`IDEMPOTENCY_CONFLICT`: the key is in use by a request still running, or was used for a different body.'),
      413: error('`PAYLOAD_TOO_LARGE`.'),
      415: error('`UNSUPPORTED_MEDIA_TYPE`: send `Content-Type: application/json`.'),
      ...common,
    },
  },
  listVerifications: {
    method: 'get',
    path: '/v1/verifications',
    operationId: 'listVerifications',
    summary: 'List your verifications, newest first',
    request: { query: ListQuery },
    responses: { 200: json(VerificationList, 'A page of verifications.'), 400: badInput, ...common },
  },
  getVerification: {
    method: 'get',
    path: '/v1/verifications/{verificationId}',
    operationId: 'getVerification',
    summary: 'Read a verification (and, once final, the verified person)',
    request: { params: VerificationIdParam, query: GetQuery },
    responses: {
      200: json(Verification, 'The verification.'),
      400: badInput,
      404: notFound,
      409: error('`NOT_FINAL`: `include=person` before the status is final; `REDACTED`: the verification was redacted.'),
      502: error('`VENDOR_MISMATCH` (the vendor answered about another entity), `VENDOR_ERROR` or `VENDOR_REJECTED`.'),
      504: error('`VENDOR_TIMEOUT`.'),
      ...common,
    },
  },
  cancelVerification: {
    method: 'post',
    path: '/v1/verifications/{verificationId}/cancel',
    operationId: 'cancelVerification',
    summary: 'Cancel a verification that is created or open',
    description:
      'Polling stops, the client secret stops working, and a `verification.canceled` webhook is sent. A vendor that cancels (see `GET /v1/capabilities`, `cancelAtVendor`) is asked first: when it cannot be reached, nothing changes and the call can be repeated.',
    request: { params: VerificationIdParam },
    responses: {
      200: json(Verification, 'Canceled.'),
      404: notFound,
      409: error('`VERIFICATION_ENDED`: it is already final, expired or canceled.'),
      502: error('`VENDOR_ERROR` or `VENDOR_REJECTED`: the vendor could not cancel; nothing changed.'),
      503: error('`VENDOR_BUSY`: the vendor is limiting calls; nothing changed. `Retry-After` says when to repeat.'),
      504: error('`VENDOR_TIMEOUT`: the vendor did not answer; nothing changed.'),
      ...common,
    },
  },
  redactVerification: {
    method: 'post',
    path: '/v1/verifications/{verificationId}/redact',
    operationId: 'redactVerification',
    summary: 'Forget the customerRef and entityId of a verification',
    description:
      'The worker forgets `customerRef` and `entityId` everywhere it keeps them (its record, the index, webhook bodies not yet sent); the id, status and times stay. A created or open verification is canceled first. A vendor that redacts (see `GET /v1/capabilities`, `redactAtVendor`) is asked to erase its copy too; other vendors keep theirs: ask the vendor to erase it. When the vendor cannot be reached, the worker still forgets its own copy and answers 502/503/504: call redact again to ask the vendor again.',
    request: { params: VerificationIdParam },
    responses: {
      200: json(Verification, 'Redacted, here and (where it redacts) at the vendor.'),
      404: notFound,
      502: error('`VENDOR_ERROR` or `VENDOR_REJECTED`: redacted here; the vendor did not erase its copy yet. Call redact again.'),
      503: error('`VENDOR_BUSY`: redacted here; the vendor is limiting calls. Call redact again after `Retry-After`.'),
      504: error('`VENDOR_TIMEOUT`: redacted here; the vendor did not answer. Call redact again.'),
      ...common,
    },
  },
  redeliverWebhook: {
    method: 'post',
    path: '/v1/verifications/{verificationId}/webhook/redeliver',
    operationId: 'redeliverWebhook',
    summary: 'Send the last webhook event again',
    description: 'The same event and `webhook-id` as before, as a fresh attempt.',
    request: { params: VerificationIdParam },
    responses: {
      202: json(RedeliveredWebhook, 'Queued.'),
      404: notFound,
      409: error('`NO_EVENT`: the verification has not ended yet, so there is no event to send.'),
      ...common,
    },
  },
  openapi: {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    security: [],
    responses: { 200: { description: 'The OpenAPI 3.1 document of `/v1`.' } },
  },
} as const satisfies Record<string, RouteDefinition>;

/** Hono's form of an OpenAPI path: `{verificationId}` → `:verificationId`. */
export const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
