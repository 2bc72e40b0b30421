/** Types of toml-edit.mjs, for the tests. */
export declare function tomlValue(text: string, header: string, key: string, where?: (lines: string[]) => boolean): string | undefined;
export declare function setTomlValue(
  text: string,
  header: string,
  key: string,
  value: string,
  where?: (lines: string[]) => boolean,
): string;
export declare const binds: (binding: string) => (lines: string[]) => boolean;
export declare function environmentTables(
  text: string,
  env: string,
): {
  vars: Record<string, string>;
  d1_databases: Record<string, string>[];
  kv_namespaces: Record<string, string>[];
  queues: { producers: Record<string, string>[]; consumers: Record<string, string>[] };
};
