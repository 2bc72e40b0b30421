/** Types of settings.mjs (what `npm start` takes from the environment), for the tests. */
export declare const SETTING_NAMES: string[];
export declare function settingsFromEnvironment(env: Record<string, string | undefined>): {
  applied: string[];
  unusable: string[];
  lines: string[];
};
