import type { AddressInfo } from 'node:net';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Config } from './config';
import { Redis } from 'ioredis';
import type { AuthServices, Context, RequestMeta } from './context';
import { KeyRateLimiter, LoginThrottle, rateLimited } from './auth/rate-limit';
import { LastUsedRecorder } from './auth/last-used';
import { connectDatabase, openDatabaseServer, type Database } from './db/database';
import { applyMigrations } from './db/schema-engine';
import { loadSigningKeys } from './auth/signing-keys';
import { createTokenService } from './auth/tokens';
import { resolveSession } from './auth/sessions';
import { createLogger, type Logger } from './logger';
import { schema } from './schema';
import { useRestApi } from './http/rest-api';
import { REST_ROUTES } from './http/rest-routes';
import { createHttpServer } from './http/server';
import { RequestLogWriter } from './http/request-log';
import { errorResponse } from './http/errors';
import { bootstrap, seedDemoFeeds } from './seed/bootstrap';
import { checkUncheckedDealers } from './modules/multi-source/conflicts';
import { createLoaders } from './loaders';
import { SecretBox } from './secrets';
import { Mailer } from './mail';
import { SyncRunner } from './modules/syncs/sync-runner';
import { SyncScheduler } from './modules/syncs/scheduler';
import { startSftpServer } from './sftp/sftp-server';
import type { AppServices } from './context';
import { resealCredentials } from './modules/integrations/integrations.service';
import { resealProviderKeys } from './modules/admin/ai-config.service';

/** A running server: its address, its database and how to stop it gracefully. */
export interface App {
  url: string;
  port: number;
  database: Database;
  databaseUrl: string;
  services: AppServices;
  logger: Logger;
  stop(): Promise<void>;
}

const VERSION = '0.1.0';

export async function startApp(config: Config): Promise<App> {
  const logger = createLogger(config.logLevel);
  const databaseServer = await openDatabaseServer(config);
  const applied = await applyMigrations(databaseServer.url);
  if (applied.length) logger.info('migrations applied', { migrations: applied });
  const database = connectDatabase(databaseServer.url, { poolSize: databaseServer.embedded ? 8 : 10, preparedStatements: config.preparedStatements && !databaseServer.embedded });
  const demoGroupId = await bootstrap(database, config, logger);
  const checked = await checkUncheckedDealers(database.pool);
  if (checked) logger.info('conflicts and discrepancies computed for rooftops not checked before', { rooftops: checked });

  const keys = await loadSigningKeys(config.jwt.privateKey, config.dataDir);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : null;
  redis?.on('error', (error) => logger.warn('redis error', { error: error.message }));
  const auth: AuthServices = {
    tokens: createTokenService(config.jwt, keys),
    refreshTokenTtlSeconds: config.jwt.refreshTokenTtlSeconds,
    loginThrottle: new LoginThrottle(redis),
  };
  const secrets = SecretBox.load(config.ingestion.credentialKeys, config.dataDir);
  const resealed = await resealCredentials(database.prisma, secrets) + await resealProviderKeys(database.prisma, secrets);
  if (resealed) logger.info('integration credentials and provider keys re-encrypted with the current key', { count: resealed });
  const syncs = new SyncRunner(database, secrets, logger, { dataDir: config.dataDir, allowInsecureHttpPull: config.ingestion.allowInsecureHttpPull, allowPrivateNetworks: config.allowPrivateNetworks });
  const sftp = config.ingestion.sftpPort !== null ? await startSftpServer({ port: config.ingestion.sftpPort, host: config.host, dataDir: config.dataDir, database, syncs, logger }) : null;
  const services: AppServices = {
    secrets,
    syncs,
    mailer: new Mailer({ smtpUrl: config.ingestion.smtpUrl, from: config.ingestion.mailFrom, dataDir: config.dataDir }),
    sftp: sftp ? { host: config.ingestion.sftpPublicHost, port: sftp.port } : null,
    allowInsecureHttpPull: config.ingestion.allowInsecureHttpPull,
    allowPrivateNetworks: config.allowPrivateNetworks,
    dataDir: config.dataDir,
    pool: database.pool,
  };
  if (demoGroupId) await seedDemoFeeds(database, syncs, demoGroupId, logger);
  const scheduler = config.ingestion.scheduler ? new SyncScheduler(database, syncs, logger, config.ingestion.schedulerIntervalMs) : null;
  scheduler?.start();
  const keyLimiter = new KeyRateLimiter(redis);
  const lastUsed = new LastUsedRecorder(database.prisma, logger, config.lastUsedFlushMs);
  const requestLog = new RequestLogWriter(database.prisma, logger, config.requestLogFlushMs);

  const yoga = createYoga<{ meta: RequestMeta }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'Dealership Data Platform' },
    landingPage: false,
    // Yoga's own liveness probe; the catalog's GET /api/v1/health is the health query.
    healthCheckEndpoint: '/healthz',
    logging: false,
    maskedErrors: {
      maskError(error, message) {
        const original = (error as { originalError?: Error }).originalError;
        if (original && !(original as { extensions?: object }).extensions) logger.error('resolver failed', { error: original });
        return (error as { extensions?: { http?: unknown } }).extensions?.http ? (error as Error) : new GraphQLError(message);
      },
    },
    context: async ({ request, meta }) => {
      const session = await resolveSession(request.headers.get('authorization'), database.prisma, auth.tokens, meta.ip);
      meta.userId = session.userId;
      meta.apiKeyId = session.apiKeyId;
      meta.dealerGroupIds = session.dealerGroupIds;
      if (session.principal.kind === 'apiKey') {
        lastUsed.touch(session.principal.apiKeyId);
        meta.rateLimit = await keyLimiter.consume(session.principal.apiKeyId, session.principal.rateLimitPerHour);
        if (meta.rateLimit.limited) throw rateLimited(meta.rateLimit);
      }
      return { requestId: meta.requestId, db: database.prisma, session, meta, auth, loaders: createLoaders(), services };
    },
    plugins: [
      <Plugin<Context>>{
        onRequest({ url, endResponse }) {
          if (url.pathname === '/') {
            endResponse(Response.json({ name: 'Dealership Data Platform', version: VERSION, rest: '/api/v1', docs: '/api/v1/docs', openapi: '/api/v1/openapi.json', graphql: '/graphql' }));
          } else if (url.pathname !== '/graphql' && !url.pathname.startsWith('/api/v1')) {
            endResponse(errorResponse(404, 'NOT_FOUND', `no such path ${url.pathname}; the REST API is under /api/v1, GraphQL at /graphql`));
          }
        },
        onExecute({ args }: { args: { contextValue: unknown; operationName?: string | null } }) {
          const meta = (args.contextValue as Context).meta;
          meta.operation ??= args.operationName ?? null;
        },
      },
      useRestApi({
        basePath: '/api/v1',
        routes: REST_ROUTES,
        title: 'Dealership Data Platform API',
        version: VERSION,
        onInternalError: (error) => logger.error('REST operation failed', { error }),
      }),
    ],
  });

  const http = createHttpServer({ yoga: yoga as never, trustProxyHops: config.trustProxyHops, jwks: keys.jwks, maxBodyBytes: config.maxBodyBytes, requestLog, logger });
  const { server } = http;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  logger.info('listening', { url, database: databaseServer.embedded ? 'embedded' : 'external', sftp: sftp ? sftp.port : 'off' });

  let stopping: Promise<void> | null = null;
  return {
    url,
    port,
    database,
    databaseUrl: databaseServer.url,
    services,
    logger,
    stop() {
      stopping ??= (async () => {
        await scheduler?.stop();
        await sftp?.close();
        await http.close();
        await syncs.drain();
        services.mailer.close();
        await Promise.all([requestLog.close(), lastUsed.close()]);
        await redis?.quit().catch(() => redis.disconnect());
        await database.close();
        await databaseServer.stop();
      })();
      return stopping;
    },
  };
}
