// ESLint finds the mistakes a reader would miss; Prettier (.prettierrc.json)
// owns the layout, so no rule here is about spacing or line length.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['reports/', 'docs/', '.ci/peers/', '.tmp/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      'no-unused-vars': ['error', { caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-throw-literal': 'error',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  {
    files: ['test/**'],
    // Functions passed to a browser page (page.evaluate) run there.
    languageOptions: { globals: { document: 'readonly', window: 'readonly' } },
    rules: {
      // Tests match what a terminal prints: colour escapes and column spacing.
      'no-control-regex': 'off',
      'no-regex-spaces': 'off',
    },
  },
  // A printer that grows one `if` per flag hides what it prints (issue 52):
  // the report's functions stay short enough to read at a glance.
  {
    files: ['lib/report/**'],
    rules: { 'max-lines-per-function': ['error', { max: 50, skipBlankLines: true, skipComments: true }] },
  },
  // A node:test reporter is an async generator even when it yields nothing.
  { files: ['test/**/*reporter*.js'], rules: { 'require-yield': 'off' } },
];
