export function migrations(root: string): { name: string; statements: string[] }[];
export function applyMigrations(
  db: {
    batch(s: unknown[]): Promise<unknown>;
    prepare(sql: string): {
      run(): Promise<unknown>;
      all(): Promise<{ results: Record<string, unknown>[] }>;
      bind(...values: unknown[]): unknown;
    };
  },
  root: string,
): Promise<void>;
export function applyWithWrangler(root: string, env: Record<string, string>, persistTo?: string): { status: number; output: string };
export function applyWithWranglerAsync(
  root: string,
  env: Record<string, string>,
  persistTo?: string,
): Promise<{ status: number; output: string }>;
