// ESLint flat config: type-aware typescript-eslint, React hooks, no import
// cycles. Formatting is Prettier's job (eslint-config-prettier, last, turns off
// the stylistic rules that would fight it). `npm run lint`; part of `npm test`.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.bench-tmp/', '.stryker-tmp/', '.stryker-tmp-ci/', 'reports/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      // Relative imports are written `./x.js` and resolve to x.ts / x.tsx (NodeNext).
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.json', '.node'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      // Handing on an abort reason or an upstream rejection unchanged is right;
      // what this catches is rejecting with a string or a plain object.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Load-time cycles; type-only imports are not followed (test/structure.test.ts counts those too).
      'import-x/no-cycle': 'error',
      // `x as unknown as T` silences the type checker instead of fixing the type.
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression > TSAsExpression.expression[typeAnnotation.type='TSUnknownKeyword']",
          message: 'No `as unknown as` casts: fix the type, or narrow with a type guard.',
        },
      ],
      // An `async` method without `await` is how this code base implements a
      // Promise-returning interface: a throw inside it becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // Terminal output is the subject here: ANSI escapes and control bytes are
      // exactly what the sanitizers and console parsers match.
      'no-control-regex': 'off',
      // A timer set after the cleanup closure that clears it is declared cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // React hooks exist only in the TUI (a `useX` helper elsewhere, like the
    // tests' useFakeLlm(), is not a React hook).
    files: ['src/ui/**/*.{ts,tsx}', 'test/ui/**/*.{ts,tsx}', 'bench/ui.bench.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Tests and benches read JSON off the wire (fake servers, --json output)
    // and assert on it: the values are `any` by nature and the assertion is the check.
    files: ['test/**/*.{ts,tsx}', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Plain JavaScript (this file, bin/, test helpers run by node): no type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    // CommonJS on purpose (bin/package.json): the bin starts without Node's ES module loader.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
