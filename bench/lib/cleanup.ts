/**
 * Everything the benchmark starts (wrangler dev, the fake vendor, Chromium,
 * page servers) registers how to stop it here, so that Ctrl-C or a kill still
 * takes it all down (they run in their own process groups, which would
 * otherwise outlive us).
 */
const stops = new Set<() => Promise<unknown>>();

export function onCleanup(stop: () => Promise<unknown>): () => void {
  stops.add(stop);
  return () => void stops.delete(stop);
}

export async function cleanupAll(): Promise<void> {
  const all = [...stops];
  stops.clear();
  await Promise.allSettled(all.map((s) => s()));
}

let installed = false;
export function installSignalHandlers(): void {
  if (installed) return;
  installed = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\n[bench] ${sig}: stopping everything it started …\n`);
      const hard = setTimeout(() => process.exit(130), 15_000);
      void cleanupAll().finally(() => {
        clearTimeout(hard);
        process.exit(130);
      });
    });
  }
}
