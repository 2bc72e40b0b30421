import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

/** The messages one lint rule's config gives for `code`, linted as the TypeScript file `filePath` (the rule's tests). */
export async function lintMessages(config: Linter.Config, code: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, config],
  });
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.message);
}
