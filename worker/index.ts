/** The Worker entry: the app, and the Durable Object classes wrangler.toml binds. */
import app from './app';

export { IdempotencyStore } from './idempotency-durable';
export { SandboxStore } from './sandbox/store-durable';

export default app;
