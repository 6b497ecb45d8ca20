import type { AddressInfo } from 'node:net';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { WebhookDispatcher } from './modules/webhooks/webhook-dispatcher';
import { TimedEventsClock } from './modules/events/timed-events';
import { EventTail } from './modules/events/event-tail';
import { Redis } from 'ioredis';
import type { Config } from './config';
import type { Context } from './context';
import type { AppServices, FeedSettings } from './app-services';
import { BackgroundWork } from './background-work';
import { KeyRateLimiter, LoginThrottle } from './auth/rate-limit';
import { LastUsedRecorder } from './auth/last-used';
import { connectDatabase, LISTENING_LOST, openDatabaseServer, type Database } from './db/database';
import { applyMigrations } from './db/schema-engine';
import { loadSigningKeys } from './auth/signing-keys';
import { createTokenService } from './auth/tokens';
import { AUTH_CHANGES, Authenticator } from './auth/authenticate';
import { createLogger, type Logger } from './logger';
import { schema } from './schema';
import { useRestApi } from './http/rest-api';
import { createHttpServer } from './http/server';
import { RequestLogWriter } from './http/request-log';
import { IdempotentRequests } from './http/idempotency';
import { errorResponse } from './http/errors';
import { useExchange, type ExchangeServerContext } from './http/exchange';
import { useGraphqlEdge } from './http/graphql-edge';
import { graphiqlOptions, offlineGraphiQL } from './http/graphiql';
import { useGraphqlLimits } from './http/graphql-limits';
import { useCompiledExecution } from './http/compiled-execution';
import { ANSWER_CHANGES, AnswerCache, useAnswerCache } from './http/answer-cache';
import { INVENTORY_ANSWERS } from './modules/inventory/inventory.schema';
import { FieldRateLimiter } from './http/field-rate-limits';
import { databaseErrorFor } from './db/errors';
import { bootstrap, seedDemoFeeds } from './seed/bootstrap';
import { checkUncheckedDealers } from './modules/multi-source/conflicts';
import { createLoaders } from './loaders';
import { SecretBox } from './secrets';
import { Mailer } from './mail';
import { SyncScheduler } from './modules/syncs/scheduler';
import { startSftpServer } from './sftp/sftp-server';
import { resealCredentials } from './modules/integrations/integrations.service';
import { resealProviderKeys } from './modules/ai/ai-config.service';
import { VERSION } from './project-root';

/** A running server: its address, its database and how to stop it gracefully. */
export interface App {
  url: string;
  port: number;
  database: Database;
  databaseUrl: string;
  services: AppServices;
  logger: Logger;
  /** Relays events to webhook endpoints and delivers them (when WEBHOOK_DELIVERY is on). */
  webhooks: WebhookDispatcher;
  stop(): Promise<void>;
}

const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'ETag',
  'Idempotent-Replayed',
  'Cache-Status',
];

export async function startApp(config: Config): Promise<App> {
  const logger = createLogger(config.logLevel);
  const databaseServer = await openDatabaseServer(config, { role: 'server' });
  const stale = databaseServer.tookOverFrom;
  if (stale)
    logger.warn('took over DATA_DIR from a process that had stopped without closing it', {
      pid: stale.pid,
      holder: stale.command,
      openedAt: stale.openedAt,
    });
  const applied = await applyMigrations(databaseServer.url);
  if (applied.length) logger.info('migrations applied', { migrations: applied });
  const database = connectDatabase(databaseServer.url, {
    poolSize: databaseServer.embedded ? 8 : 10,
    preparedStatements: config.preparedStatements && !databaseServer.embedded,
    // The embedded engine runs one session for every client and cannot cancel a statement.
    statementTimeoutMs: databaseServer.embedded ? null : config.statementTimeoutMs,
    listen: [AUTH_CHANGES, ANSWER_CHANGES],
  });
  const demoGroupId = await bootstrap(database, config, logger);
  const checked = await checkUncheckedDealers(database.pool);
  if (checked)
    logger.info('conflicts and discrepancies computed for rooftops not checked before', { rooftops: checked });

  const keys = await loadSigningKeys(config.jwt.privateKey, config.dataDir);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true })
    : null;
  redis?.on('error', (error) => logger.warn('redis error', { error: error.message }));
  const tokens = createTokenService(config.jwt, keys);
  const secrets = SecretBox.load(config.ingestion.credentialKeys, config.dataDir);
  const resealed =
    (await resealCredentials(database.prisma, secrets)) + (await resealProviderKeys(database.prisma, secrets));
  if (resealed)
    logger.info('integration credentials and provider keys re-encrypted with the current key', { count: resealed });
  const feeds: FeedSettings = {
    dataDir: config.dataDir,
    sftp: null,
    allowInsecureHttpPull: config.ingestion.allowInsecureHttpPull,
    allowPrivateNetworks: config.allowPrivateNetworks,
  };
  const services: AppServices = {
    database,
    logger,
    secrets,
    mailer: new Mailer({ smtpUrl: config.ingestion.smtpUrl, from: config.ingestion.mailFrom, dataDir: config.dataDir }),
    auth: {
      tokens,
      refreshTokenTtlSeconds: config.jwt.refreshTokenTtlSeconds,
      loginThrottle: new LoginThrottle(redis),
    },
    background: new BackgroundWork(),
    feeds,
    events: new EventTail(database.pool, logger, undefined, database.notifications),
  };
  const sftp =
    config.ingestion.sftpPort !== null
      ? await startSftpServer({ port: config.ingestion.sftpPort, host: config.host, app: services })
      : null;
  // Known once the SFTP server listens (port 0 picks a free one).
  if (sftp) feeds.sftp = { host: config.ingestion.sftpPublicHost, port: sftp.port };
  if (demoGroupId) await seedDemoFeeds(services, demoGroupId);
  const scheduler = config.ingestion.scheduler
    ? new SyncScheduler(services, config.ingestion.schedulerIntervalMs)
    : null;
  scheduler?.start();
  const webhooks = new WebhookDispatcher({
    pool: database.pool,
    secrets,
    mailer: services.mailer,
    logger,
    settings: { ...config.webhooks, allowPrivateNetworks: config.allowPrivateNetworks },
  });
  await webhooks.start();
  const eventClock = config.eventClockMs ? new TimedEventsClock(database.pool, logger, config.eventClockMs) : null;
  eventClock?.start();
  const fieldLimits = new FieldRateLimiter({ redis, overrides: config.fieldRateLimits, logger });
  const lastUsed = new LastUsedRecorder(database.prisma, logger, config.lastUsedFlushMs);
  const authenticator = new Authenticator({
    db: database.prisma,
    tokens,
    keyLimiter: new KeyRateLimiter(redis),
    lastUsed,
    changes: database.notifications,
  });
  const answers = new AnswerCache({
    maxBytes: config.answerCacheBytes,
    listening: database.listening,
  }).follow(database.notifications, [LISTENING_LOST]);
  const requestLog = new RequestLogWriter(database.prisma, logger, config.requestLogFlushMs);
  const idempotency = new IdempotentRequests({ db: database.prisma, secrets, logger });
  await idempotency.start();

  const yoga = createYoga<ExchangeServerContext, Context>({
    schema: fieldLimits.apply(schema),
    graphqlEndpoint: '/graphql',
    graphiql: config.graphiql ? graphiqlOptions('Dealership Data Platform') : false,
    renderGraphiQL: offlineGraphiQL(),
    // Browsers may call the API only from the configured origins; bearer tokens, never cookies.
    cors: (request) => {
      const origin = request.headers.get('origin');
      return origin && config.corsOrigins.includes(origin)
        ? { origin: [origin], credentials: false, maxAge: 600, exposedHeaders: CORS_EXPOSED_HEADERS }
        : false;
    },
    landingPage: false,
    // Yoga's own liveness probe; GET /api/v1/health (docs/operations.md) is the health query.
    healthCheckEndpoint: '/healthz',
    logging: false,
    maskedErrors: {
      maskError(error, message) {
        const original = (error as { originalError?: Error }).originalError;
        const known = databaseErrorFor(original);
        if (known) {
          if (known.extensions.code !== 'CONFLICT') logger.warn('statement cancelled', { error: original?.message });
          // Where in the document: compiled execution's errors say it by position, not by node.
          const { nodes, source, positions, path } = error as GraphQLError;
          return new GraphQLError(known.message, { nodes, source, positions, path, extensions: known.extensions });
        }
        if (original && !(original as { extensions?: object }).extensions)
          logger.error('resolver failed', { error: original });
        return (error as { extensions?: { http?: unknown } }).extensions?.http
          ? (error as Error)
          : new GraphQLError(message);
      },
    },
    context: async ({ exchange }) => ({
      requestId: exchange.requestId,
      ip: exchange.ip,
      db: database.prisma,
      session: await exchange.caller(),
      loaders: createLoaders(),
    }),
    plugins: [
      useGraphqlEdge({ graphqlEndpoint: '/graphql', anonymousIntrospection: config.anonymousIntrospection }),
      useGraphqlLimits({ ...config.graphqlLimits, hideFieldSuggestions: !config.anonymousIntrospection }),
      <Plugin<Context>>{
        onRequest({ url, endResponse }) {
          if (url.pathname === '/') {
            endResponse(
              Response.json({
                name: 'Dealership Data Platform',
                version: VERSION,
                rest: '/api/v1',
                docs: '/api/v1/docs',
                openapi: '/api/v1/openapi.json',
                graphql: '/graphql',
              }),
            );
          } else if (url.pathname !== '/graphql' && !url.pathname.startsWith('/api/v1')) {
            endResponse(
              errorResponse(
                404,
                'NOT_FOUND',
                `no such path ${url.pathname}; the REST API is under /api/v1, GraphQL at /graphql`,
              ),
            );
          }
        },
        onExecute({ args }) {
          // Every operation receives the app's services as its root value (app-services.ts).
          args.rootValue = services;
        },
        onSubscribe({ args }) {
          args.rootValue = services;
        },
      },
      useExchange(),
      useAnswerCache(answers, INVENTORY_ANSWERS),
      useCompiledExecution(logger),
      useRestApi({
        basePath: '/api/v1',
        title: 'Dealership Data Platform API',
        version: VERSION,
        onInternalError: (error) => logger.error('REST operation failed', { error }),
        idempotency,
        answers,
      }),
    ],
  });

  const http = createHttpServer({
    yoga,
    trustProxyHops: config.trustProxyHops,
    jwks: keys.jwks,
    maxBodyBytes: config.maxBodyBytes,
    requestLog,
    logger,
    authenticator,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
  });
  const { server } = http;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  logger.info('listening', {
    url,
    database: databaseServer.embedded ? 'embedded' : 'external',
    sftp: sftp ? sftp.port : 'off',
  });

  let stopping: Promise<void> | null = null;
  return {
    url,
    port,
    database,
    databaseUrl: databaseServer.url,
    services,
    logger,
    webhooks,
    stop() {
      stopping ??= (async () => {
        await scheduler?.stop();
        await webhooks.stop();
        await eventClock?.stop();
        await services.events.stop();
        await sftp?.close();
        await http.close();
        await services.background.drain();
        services.mailer.close();
        await Promise.all([requestLog.close(), lastUsed.close()]);
        fieldLimits.close();
        idempotency.close();
        await redis?.quit().catch(() => redis.disconnect());
        await database.close();
        await databaseServer.stop();
      })();
      return stopping;
    },
  };
}
