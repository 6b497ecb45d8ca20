// Runs `prisma generate` without the native schema engine: generation never executes it,
// but the CLI insists on finding one, so any executable will do.
import { spawnSync } from 'node:child_process';

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
};
const result = spawnSync('npx', ['--no-install', 'prisma', 'generate', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
