// ESLint with typescript-eslint's rules that need no types. The rules that do (no-floating-promises,
// no-misused-promises, await-thenable, no-unsafe-type-assertion) run in `oxlint --type-aware` (.oxlintrc.json, same
// files, same options), whose tsgolint reads the types with the native compiler (TypeScript 7, as the build and the
// type check do): 11 s of CPU where typescript-eslint's type-checked program took ~50 s of ESLint's 77 (a CI run is
// bound by its two cores; test/README.md). typescript-eslint parses with the `typescript` package (6.x), which is
// here for it alone.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Casts that silence the type checker instead of telling it something true. */
const unsafeCasts = [
  {
    selector: 'TSAsExpression > TSNeverKeyword.typeAnnotation',
    message: '`as never` hides a type error: type the value, or narrow it with a check.',
  },
  {
    selector: 'TSAsExpression > TSAsExpression > TSUnknownKeyword.typeAnnotation',
    message: '`as unknown as` hides a type error: type the value, or narrow it with a check.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'client/dist/',
      'console/dist/',
      'test-artifacts/',
      'coverage/',
      'data/',
      'scratch/',
      'bench/results/',
      'client/src/openapi.ts',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-assertions': [
        'error',
        { assertionStyle: 'as', objectLiteralTypeAssertions: 'allow-as-parameter' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', ...unsafeCasts],
    },
  },
  {
    // The service: stricter than tests and tools.
    files: ['src/**/*.ts', 'client/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Errors are made through the factory map of src/errors.ts, so every code and status is listed once.
    files: ['src/**/*.ts'],
    ignores: ['src/errors.ts', 'src/errors/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...unsafeCasts,
        {
          selector: 'NewExpression[callee.name="AppError"]',
          message: 'Build errors through the factories of src/errors.ts and src/errors/ (errors.xxx(...)).',
        },
      ],
    },
  },
  {
    // Modules are given their configuration; only config.ts and the entry points read the environment.
    files: ['src/modules/**/*.ts', 'src/db/**/*.ts', 'src/http/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in src/config.ts and pass it in.' },
      ],
    },
  },
  {
    // Migrations see the database as it was when they were written, not the live Database type: Kysely<any>,
    // as Kysely's own migration guide does.
    files: ['src/db/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The console: a browser application, held to the service's rules (its own tsconfig).
    files: ['console/src/**/*.ts', 'console/src/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        ...unsafeCasts,
        {
          // docs/console.md: a passive effect runs after the page is drawn, and a key pressed in between acts where
          // the focus was (on the page's body, when the element that had it is gone).
          selector:
            'CallExpression[callee.name="useEffect"] CallExpression[callee.property.name=/^(focus|showModal)$/]',
          message: 'Move the focus in useLayoutEffect, with the drawing that shows where it goes (docs/console.md).',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
);
