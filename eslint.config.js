import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'models/**', '.cache/**', 'bench/results/**', 'tests/e2e/artifacts/**', 'tests/firefox/artifacts/**', '.dist-*/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-restricted-globals': ['error', { name: 'eval', message: 'No eval: the extension has a strict CSP.' }],
    },
  },
  {
    // The pure core must not reach for the browser.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', 'chrome', 'browser', 'window', 'document', 'indexedDB', 'localStorage', 'fetch'],
      'no-restricted-imports': ['error', { patterns: ['webextension-polyfill', 'idb', '../background/*', '../content/*', '../popup/*'] }],
    },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
