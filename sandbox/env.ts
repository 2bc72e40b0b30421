/**
 * The sandbox's own bindings and context. The sandbox is a separate part (the
 * vendor's double): it reads only its own settings and never imports the
 * product; whatever it needs from the deployment that mounts it (which
 * redirect addresses an HTTP caller may use) comes in as a callback.
 */
import type { SandboxSettings } from './config';
import type { SandboxStore } from './store-durable';
import { httpUrl } from '../rules/http-url';

export interface SandboxEnv extends SandboxSettings {
  /** Durable Object (SQLite) that holds the sandbox's state. Absent = in memory (node tests). */
  SANDBOX_STORE?: DurableObjectNamespace<SandboxStore>;
}

/**
 * Whether an HTTP caller may send people back to `origin` (a normalised
 * http(s) origin). Set by whoever mounts the sandbox, on requests that reached
 * it over HTTP; the mounting worker's own in-process calls carry none.
 */
export type RedirectCheck = (origin: string, requestUrl: string) => Promise<boolean>;

/** Hono's generic for the sandbox app. */
export interface SandboxAppEnv {
  Bindings: SandboxEnv;
  Variables: {
    requestId: string;
    /** Set on requests that reached the sandbox over HTTP (not the worker's own in-process calls). */
    sandboxHttpCaller?: RedirectCheck;
  };
}

/** `value` as a serialised http(s) origin, or undefined. */
export function httpOrigin(value: string): string | undefined {
  return httpUrl(value)?.origin;
}
