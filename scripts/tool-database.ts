// How the command-line tools reach the database: DATABASE_URL, or the embedded one under DATA_DIR,
// through the running server when it holds DATA_DIR (one process at a time may open the files).
import type { Config } from '../src/config';
import { openDatabaseServer, type DatabaseServer } from '../src/db/database';
import { DataDirInUseError } from '../src/db/data-dir-lock';

/**
 * Opens the tool's database, saying on stderr when it goes through the running server; exits 1 with
 * the reason when DATA_DIR is held by something it cannot work through (another tool, a server still starting).
 */
export async function openToolDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  command: string,
): Promise<DatabaseServer> {
  try {
    const server = await openDatabaseServer(config, { role: 'tool', command });
    if (server.throughServerPid !== null) {
      console.error(
        `the server (pid ${server.throughServerPid}) has DATA_DIR open: working through its embedded database at ${new URL(server.url).host}`,
      );
    }
    return server;
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
