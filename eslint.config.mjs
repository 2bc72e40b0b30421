// ESLint: typescript-eslint's strict, type-checked rules, the Lit rules, and the
// import boundaries of the architecture (docs/architecture.md). Each rule tuned
// away from its default says why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import lit from 'eslint-plugin-lit';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.wrangler/**',
      'bench/results/**',
      'packages/kyc-onboard/dist/**',
      '**/*.d.ts',
      '**/mockServiceWorker.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // TypeScript already reports undefined names, with the right globals per target.
      'no-undef': 'off',
      // Numbers and booleans read naturally in messages and log lines.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `() => void x()` callbacks (event handlers, Hono's `(c) => c.json(...)`) are the idiom.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Hono middleware and Durable Object methods are async by contract even when a body has no await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Plain JavaScript (scripts, examples, configs): no type information; Node's globals.
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node, ...globals.browser },
    },
  },
  {
    files: ['widget/**/*.ts'],
    ...lit.configs['flat/recommended'],
  },
  {
    // Tests and benchmarks read JSON answers and assert on them: `any` from
    // `res.json()` and `!` after an assertion are how a test says "this exists".
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach', 'suite'],
            },
          ],
        },
      ],
    },
  },
  {
    // @open-wc/testing's chai plugins type every assertion as a thenable, so
    // `expect(x).to.equal(y)` would read as a floating promise.
    files: ['test/widget/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
);
