export declare const chromiumPath: string;
export declare const chromiumArgs: string[];
export declare function chromiumLaunchOptions(): { executablePath: string; headless: boolean; args: string[] };
export declare function freshUserDataDir(): string;
