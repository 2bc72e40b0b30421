/**
 * The one way the ports are built: the stores from the environment's
 * bindings, then what the deployment (or a test) plugs in over them. The app
 * calls it once per request (`c.var.ports`); the Durable Objects and the queue
 * consumer call it with the same plug-ins their entry gives createApp.
 * Building never fails: a store whose binding is missing fails when it is
 * used, with 500 MISCONFIGURED naming the binding.
 */
import { bindingIfAny, missingBinding, type Env } from './lib/env';
import { durableAllowances } from './lib/allowances';
import { durableIdempotency } from './lib/idempotency';
import { durableVerifications } from './verifications/verification-store';
import type { PortOverrides, Ports, Stores } from './ports';

/** A store that answers every use with MISCONFIGURED naming its binding. */
function unbound<T extends object>(name: 'VERIFICATIONS' | 'IDEMPOTENCY' | 'LIMITS'): T {
  return new Proxy({} as T, {
    get(_, key) {
      if (key === 'then') return undefined; // not a thenable: `await` of the store itself stays harmless
      throw missingBinding(name);
    },
  });
}

function stores(env: Env): Stores {
  const v = bindingIfAny(env, 'VERIFICATIONS');
  const i = bindingIfAny(env, 'IDEMPOTENCY');
  const l = bindingIfAny(env, 'LIMITS');
  return {
    verifications: v ? durableVerifications(v) : unbound('VERIFICATIONS'),
    idempotency: i
      ? durableIdempotency(i)
      : () => {
          throw missingBinding('IDEMPOTENCY');
        },
    allowances: l ? durableAllowances(l) : unbound('LIMITS'),
  };
}

/** The ports for `env`: its stores, with `overrides` (an entry's plug-ins, a test's twins) in their place. */
export function portsFor(env: Env, overrides: PortOverrides = {}): Ports {
  return { ...stores(env), ...(typeof overrides === 'function' ? overrides(env) : overrides) };
}
