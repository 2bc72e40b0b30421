/**
 * What the worker uses for unset settings while the sandbox is the vendor:
 * the sandbox's default customer and key (`demo-customer` / `sandbox-key`)
 * and the committed development sealing key of the partner registry. Plugged
 * in by the local stack (entry/local-app.ts); production has no sandbox, so
 * it has none of these (its configuration guard asks for the real settings).
 */
import type { JWK } from 'jose';

export interface SandboxDefaults {
  customerId: string;
  apiKey: string;
  /** Opens registry secrets sealed with `npm run partners` against a local worker. */
  sealingKey: JWK;
}

let plugged: SandboxDefaults | undefined;

/** Called once by the entry that composes the sandbox. */
export function useSandboxDefaults(d: SandboxDefaults): void {
  plugged = d;
}

/** The defaults, or undefined in a deployment without the sandbox. */
export const sandboxDefaults = (): SandboxDefaults | undefined => plugged;
