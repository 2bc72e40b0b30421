/**
 * The fast fake vendor in a process of its own (run by lib/vendor-process.ts),
 * so that it does not share an event loop with the load generator. Requests
 * are not recorded (memory stays flat under load). Prints its URL as one JSON
 * line and runs until SIGTERM.
 */
import { startFakeVendor } from '../../test/support/fake-vendor';

const vendor = await startFakeVendor(undefined, { record: false });
process.stdout.write(JSON.stringify({ url: vendor.url }) + '\n');
const stop = () => void vendor.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
