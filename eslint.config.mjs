// ESLint: typescript-eslint's strict, type-checked rules, the Lit rules, and the
// import boundaries of the architecture (docs/architecture.md). Each rule tuned
// away from its default says why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import lit from 'eslint-plugin-lit';
import globals from 'globals';
import { settingReadsConfig } from './scripts/lint/settings-reads.mjs';
import { clockAndLogConfig } from './scripts/lint/clock-and-log.mjs';
import { dependencyRegistriesConfig } from './scripts/lint/dependency-registries.mjs';

// Import boundaries (docs/architecture.md, "One direction"). Imports are matched as written,
// so each rule names the way up to the repository root for the depth of the importing file.
const up = (depth) => `^(\\.\\./){${depth}}`;
/** worker/demo/ as a file `depth` folders below the root writes it. */
const workerDemo = (depth) => (depth === 1 ? '^\\./demo(/|$)' : `^(\\.\\./){${depth - 1}}demo(/|$)`);
/** worker/ at `depth` folders below the root: no sandbox, demo (page or worker pieces) or widget code. */
const workerBoundary = (depth) => ({
  files: [`worker/${'*/'.repeat(depth - 1)}*.ts`],
  // The local entry is the one place that plugs the sandbox and the demo in (the demo's own
  // worker pieces import each other as `./x`, which the rule below leaves alone).
  ignores: ['worker/entry/local*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `${up(depth)}(sandbox|demo|widget)(/|$)`,
            message: 'worker/ imports no sandbox, demo or widget code: only worker/entry/local*.ts plugs them in.',
          },
          {
            regex: workerDemo(depth),
            message:
              'Production modules import no demo piece (worker/demo/): worker/entry/local*.ts plugs them in as a partner source, a webhook transport, a secret source and routes.',
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.wrangler/**',
      'bench/results/**',
      'packages/kyc-onboard/dist/**',
      '**/*.d.ts',
      '**/*.d.mts',
      '**/mockServiceWorker.js',
      // Its own tsc and vite build check it (test/package/apps.test.ts), with its own dependencies.
      'examples/react-app/**',
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
      // With noUncheckedIndexedAccess, `m[1]!` after a successful match and `x[i]!` inside a
      // bounds-checked loop are how the code says "present"; tsc, not the linter, guards the rest.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A generic only in the return type (`$<HTMLInputElement>(id)`, `post<Answer>(…)`) is how a
      // caller names what a lookup returns, as `querySelector<T>` does.
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
      // Deleting a key of a record keyed by a closed union (field names, language tags) is the idiom.
      '@typescript-eslint/no-dynamic-delete': 'off',
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
    // The widget throws its `Failure` values (plain data the run and the host read), not Errors.
    files: ['widget/**/*.ts'],
    rules: {
      '@typescript-eslint/only-throw-error': ['error', { allow: [{ from: 'file', name: 'Failure', path: 'widget/api.ts' }] }],
      // An underscore member is its class's own: the views and the run use what flow-api.ts declares.
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name=/^_/]:not([object.type='ThisExpression'])",
          message: "Another object's underscore member: make it part of that object's API (widget/flow-api.ts) instead.",
        },
      ],
    },
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
      // `x?.y` on a value a test expects lets the assertion report the difference instead of a
      // TypeError, and `after(() => worker?.stop())` runs even when `before` failed.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Failure messages print arrays and answers as they are; process output arrives as chunks.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowAny: true, allowArray: true, allowNullish: true, allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/restrict-plus-operands': ['error', { allowAny: true }],
      // `[...s].length` counts code points on purpose (length limits, the fuzzer's pieces).
      '@typescript-eslint/no-misused-spread': 'off',
      // `createServer(async (req, res) => …)`: node's servers take async handlers; a throw fails the test.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
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
    // The bench prints the machine facts it recorded (JSON of no fixed shape) as they are.
    files: ['bench/**/*.ts'],
    rules: { '@typescript-eslint/restrict-template-expressions': 'off' },
  },
  {
    // @open-wc/testing's chai plugins type every assertion as a thenable, so
    // `expect(x).to.equal(y)` would read as a floating promise.
    // `expect(x).to.be.true` is an assertion written as a property read.
    files: ['test/widget/**/*.ts'],
    // `createElement('kyc-onboard') as KycOnboard` names the class the tag is registered with.
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  workerBoundary(1),
  workerBoundary(2),
  workerBoundary(3),
  // Settings read once (worker/config.ts, sandbox/config.ts): no `env.<SETTING>` anywhere else.
  settingReadsConfig(),
  // One clock and one logger: no `Date.now()` or `console.*` outside them.
  ...clockAndLogConfig(),
  // One way to plug in a dependency (worker/ports.ts): no use…() setters, module-level `let` or per-env WeakMap.
  dependencyRegistriesConfig(),
  {
    // The sandbox is just another vendor: it knows the spec's data model and the shared
    // field rules (rules/), never the product that uses it.
    files: ['sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+worker/(?!vendors/idv/schemas$)',
              message: 'sandbox/ imports no product code: only worker/vendors/idv/schemas (the spec) and rules/.',
            },
            { regex: '^(\\.\\./)+(demo|widget)(/|$)', message: 'sandbox/ imports no demo or widget code.' },
          ],
        },
      ],
    },
  },
  {
    // The widget knows the browser-facing API only: `import type` from worker/contract, which costs no bytes.
    files: ['widget/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+worker/(?!contract(\\.js)?$)',
              message: 'The widget imports no worker code: only types from worker/contract.',
            },
            {
              regex: '^(\\.\\./)+worker/contract(\\.js)?$',
              allowTypeImports: true,
              message: 'The widget may only `import type` from worker/contract (no bytes).',
            },
            { regex: '^(\\.\\./)+(sandbox|demo)(/|$)', message: 'The widget imports no sandbox or demo code.' },
          ],
        },
      ],
    },
  },
);
