import type { Linter } from 'eslint';

export const CLOCK_FILES: string[];
export const LOG_FILES: string[];
export function clockAndLogConfig(): Linter.Config[];
