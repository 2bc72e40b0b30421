/** Types of deploy-checks.mjs (what `npm run deploy` refuses), for the tests. */
export declare const LIVE_SECRETS: string[];
export declare const SECRETS: string[];
export declare const SHELL_VARS: string[];
export declare const QUEUE_BINDINGS: string[];
export declare const DEPLOY_ENV: string;
export declare function baseUrlProblem(value: string | undefined): string | undefined;
export declare function publicOriginProblem(value: string | undefined): string | undefined;
export declare function originsProblem(value: string | undefined): string | undefined;
export declare function webhookUrlProblem(value: string | undefined): string | undefined;
export declare function webhookSecretProblem(value: string | undefined): string | undefined;
export declare function serverKeysProblem(value: string | undefined): string | undefined;
export declare function d1Problem(config: { d1_databases?: { binding: string; database_id?: string }[] }): string | undefined;
export declare function signingKeysProblem(raw: string): string | undefined;
interface DeployConfig {
  vars?: Record<string, unknown>;
  d1_databases?: { binding: string; database_id?: string }[];
  queues?: { producers?: { binding: string; queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
}
export declare function queuesOf(config: DeployConfig): string[];
export declare function deployProblems(options: {
  config: DeployConfig;
  env: Record<string, string | undefined>;
  remoteSecrets: Set<string> | undefined;
  registry?: { partners: number; origins: number } | undefined;
  missingQueues?: string[] | undefined;
}): string[];
export declare function shellSecrets(env: Record<string, string | undefined>): Record<string, string>;
export declare function shellVars(env: Record<string, string | undefined>): Record<string, string>;
export declare function deploySteps(options: {
  dryRun: boolean;
  vars: Record<string, string>;
  secretsFile?: string;
  configFlag?: string[];
  extraArgs: string[];
}): { migrate: string[] | undefined; wouldMigrate?: string[]; deploy: string[] };
