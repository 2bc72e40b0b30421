import type { ESLint, Linter } from 'eslint';

export const dependencyRegistriesPlugin: ESLint.Plugin;
export function dependencyRegistriesConfig(): Linter.Config;
