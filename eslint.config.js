// ESLint: typescript-eslint's type-checked recommended rules over src/, test/ and ui/ (the web UI), formatting left to Prettier.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', '.scratch/', 'src/generated/', 'node_modules/', 'coverage/', '**/*.mjs', '**/*.cjs', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/only-throw-error': 'error',
      // Async functions that do not await keep one Promise-returning signature across backends and fakes.
      '@typescript-eslint/require-await': 'off',
      // Node's servers and emitters take async listeners; their rejections are handled inside.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  // Vitest's asymmetric matchers (expect.stringContaining, expect.any...) are typed `any`.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-unsafe-assignment': 'off' } },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  // The UI's Vite config is type-checked by ui/tsconfig.node.json (Node), apart from the browser code's ui/tsconfig.json.
  { files: ['ui/vite.config.ts'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
