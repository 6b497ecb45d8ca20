// `npm run sync -- <integration id>` runs an integration's sync now (its waiting file, or its API pull);
// `npm run sync -- <file> --integration <id>` loads a local file through that integration's mapping and rules.
// Progress shows as a bar; the exit code is 1 when the run fails. On the embedded database, a running
// server holds DATA_DIR (its files serve one process at a time), so the run goes through its database.
import { existsSync } from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { loadConfig } from '../src/config';
import { connectDatabase } from '../src/db/database';
import { applyMigrations } from '../src/db/schema-engine';
import { createLogger } from '../src/logger';
import { SecretBox } from '../src/secrets';
import { BackgroundWork } from '../src/background-work';
import { startSync, type RunProgress } from '../src/modules/syncs/syncs.service';
import { isUuid } from '../src/validation';
import { openToolDatabase } from './tool-database';
import { helpRequested } from './usage';

helpRequested(`
usage: npm run sync -- <integration id>                  run an integration's sync now (its waiting file, or its API pull)
       npm run sync -- <file> --integration <id>         load a local file through that integration's mapping and rules
  The exit code is 1 when the run fails. On the embedded database, a running server's database is used.`);

const args = process.argv.slice(2);
const flag = args.indexOf('--integration');
const integrationId = flag >= 0 ? args[flag + 1] : args.find(isUuid);
const file = args.find((arg, index) => !isUuid(arg) && index !== flag && index !== flag + 1 && !arg.startsWith('--'));
if (!integrationId || !isUuid(integrationId) || (file && !existsSync(file))) {
  console.error(
    file && !existsSync(file)
      ? `no such file: ${file}`
      : 'usage: npm run sync -- <integration id>   or   npm run sync -- <file> --integration <id>',
  );
  process.exit(2);
}

const config = loadConfig();
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
const server = await openToolDatabase(config, 'npm run sync');
const database = connectDatabase(server.url, { poolSize: 4 });
let exitCode = 0;
try {
  await applyMigrations(server.url);
  const integration = await database.prisma.integration.findFirst({
    where: { id: integrationId, disconnectedAt: null },
  });
  if (!integration) throw new Error(`no integration ${integrationId}`);
  const app = {
    database,
    logger,
    secrets: SecretBox.load(config.ingestion.credentialKeys, config.dataDir),
    background: new BackgroundWork(),
    feeds: {
      dataDir: config.dataDir,
      sftp: null,
      allowInsecureHttpPull: config.ingestion.allowInsecureHttpPull,
      allowPrivateNetworks: config.allowPrivateNetworks,
    },
  };
  const bar = new cliProgress.SingleBar(
    {
      format: ' {bar} {percentage}% | {rows} rows | {created} new, {updated} updated, {failed} failed',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(100, 0, { rows: 0, created: 0, updated: 0, failed: 0 });
  const onProgress = (progress: RunProgress) => {
    const percent = progress.bytesTotal ? Math.floor((progress.bytesRead / progress.bytesTotal) * 100) : 0;
    bar.update(percent, {
      rows: progress.rowsRead,
      created: progress.created,
      updated: progress.updated,
      failed: progress.failed,
    });
  };
  const { runId, done } = await startSync(app, integration.id, 'cli', {
    file: file ? path.resolve(file) : null,
    onProgress,
  });
  await done;
  bar.update(100);
  bar.stop();
  const run = await database.prisma.syncRun.findUniqueOrThrow({ where: { id: runId } });
  console.log(
    `${integration.name}: ${run.status} in ${((run.finishedAt!.getTime() - run.startedAt.getTime()) / 1000).toFixed(1)} s; ` +
      `read ${run.rowsRead}, created ${run.created}, updated ${run.updated}, unchanged ${run.unchanged}, skipped ${run.skipped}, failed ${run.failed}` +
      (run.presumedSold ? `, presumed sold ${run.presumedSold}` : '') +
      (run.error ? `\n${run.error}` : ''),
  );
  const errors = await database.prisma.syncRowError.findMany({
    where: { syncRunId: runId },
    orderBy: { row: 'asc' },
    take: 10,
  });
  for (const error of errors) console.log(`  line ${error.row}: ${error.message}`);
  if (run.failed > errors.length)
    console.log(`  … and ${run.failed - errors.length} more (GET /api/v1/syncs/${runId})`);
  if (run.status !== 'succeeded') exitCode = 1;
} catch (error) {
  console.error((error as Error).message);
  exitCode = 1;
} finally {
  await database.close();
  await server.stop();
}
process.exit(exitCode);
