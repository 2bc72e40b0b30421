/** Emitting from a request: the event goes out after the answer (`waitUntil`), for the request's partner unless told. */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { emitOne, type OpsEvent, type WaitUntil } from './events';

/** The request's execution context, when there is one (node tests' `app.request()` has none). */
export function waitUntilOf(c: Context<AppEnv>): WaitUntil | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** Counts `event` for `partnerId` (default: the request's partner). Never throws, never delays the answer. */
export function track(c: Context<AppEnv>, event: OpsEvent, partnerId: string | undefined = c.get('partner')?.id): void {
  try {
    emitOne(c.env, waitUntilOf(c), partnerId, event);
  } catch {
    // emitOne logs its own failures; nothing reaches the request.
  }
}
