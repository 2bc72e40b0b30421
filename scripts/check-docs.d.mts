/** Types of check-docs.mjs, for the tests. */
export declare function anchorsOf(text: string): Set<string>;
export declare function linksOf(text: string): { target: string; line: number }[];
export declare function commandsWithoutEnv(text: string): { line: number; command: string }[];
export declare function check(): { problems: string[]; files: number };
