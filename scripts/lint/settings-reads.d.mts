import type { Linter } from 'eslint';

export function settingNames(envSource?: string): string[];
export function settingReadSelectors(names: string[]): { selector: string; message: string }[];
export function settingReadsConfig(names?: string[]): Linter.Config;
