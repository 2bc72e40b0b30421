/**
 * The apps of the node tier, with the stores' twins plugged in
 * (test/support/node-twins.ts): the local stack's (the sandbox and the demo
 * plugged in, as entry/local-app.ts builds it) and the product alone (as
 * entry/production.ts builds it).
 */
import { createApp } from '../../worker/app';
import { localApp } from '../../worker/entry/local-app';
import { deliveriesFor, twinsFor } from './node-twins';

export const nodeApp = localApp({ ports: twinsFor, deliveries: deliveriesFor });

export const nodeProductApp = createApp({ ports: twinsFor });
