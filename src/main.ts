import { ConfigError, loadConfig } from './config';
import { startApp } from './app';
import { DataDirInUseError } from './db/data-dir-lock';

/** Entry point: read the configuration, start the server, stop gracefully on SIGINT or SIGTERM. */
try {
  const app = await startApp(loadConfig());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.logger.info('stopping', { signal });
      app.stop().then(
        () => process.exit(0),
        (error) => {
          app.logger.error('stop failed', { error });
          process.exit(1);
        },
      );
    });
  }
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof DataDirInUseError) {
    process.stderr.write(`cannot start: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
