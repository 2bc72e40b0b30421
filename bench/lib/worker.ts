/** startWorker() (test/support/wrangler.ts) with its stop registered for Ctrl-C. */
import { startWorker as start, type StartOptions, type RunningWorker } from '../../test/support/wrangler';
import { onCleanup } from './cleanup';

export async function startWorker(options: StartOptions): Promise<RunningWorker> {
  const w = await start(options);
  const forget = onCleanup(() => w.stop());
  return {
    ...w,
    stop: async () => {
      forget();
      await w.stop();
    },
  };
}
