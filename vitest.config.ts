import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
