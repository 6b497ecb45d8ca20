// House rules: typescript-eslint's recommended set (`npm run lint`, with the import-cycle check in
// .dependency-cruiser.cjs; CI runs both).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'src/generated/',
      'test-results/',
      'coverage/',
      'data/',
      '.generated-client-*/',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
    },
  },
);
