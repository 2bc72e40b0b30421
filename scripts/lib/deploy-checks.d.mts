/** Types of deploy-checks.mjs (what `npm run deploy` refuses), for the tests. */
export declare const LIVE_SECRETS: string[];
export declare const DEPLOY_ENV: string;
export declare function baseUrlProblem(value: string | undefined): string | undefined;
export declare function publicOriginProblem(value: string | undefined): string | undefined;
export declare function d1Problem(config: { d1_databases?: { binding: string; database_id?: string }[] }): string | undefined;
export declare function signingKeysProblem(raw: string): string | undefined;
export declare function deployProblems(options: {
  config: { vars?: Record<string, unknown>; d1_databases?: { binding: string; database_id?: string }[] };
  env: Record<string, string | undefined>;
  remoteSecrets: Set<string> | undefined;
}): string[];
export declare function shellSecrets(env: Record<string, string | undefined>): Record<string, string>;
export declare function deploySteps(options: {
  dryRun: boolean;
  vars: Record<string, string>;
  secretsFile?: string;
  configFlag?: string[];
  extraArgs: string[];
}): { migrate: string[] | undefined; wouldMigrate?: string[]; deploy: string[] };
