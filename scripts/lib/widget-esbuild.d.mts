import type { BuildOptions, Plugin } from 'esbuild';
export declare const TEMPLATE_SOURCES: RegExp;
export declare const minifyTemplates: Plugin;
export declare const noLitGlobals: Plugin;
export declare function scriptTagOptions(o: { name: string; tsconfig: string; plugins?: Plugin[] }): BuildOptions;
