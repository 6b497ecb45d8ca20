import type { AddressInfo } from 'node:net';
import { GraphQLError, Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
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
import { createHttpServer } from './http/server';
import { RequestLogWriter } from './http/request-log';
import { errorResponse } from './http/errors';
import { useGraphqlEdge } from './http/graphql-edge';
import { graphiqlOptions, offlineGraphiQL } from './http/graphiql';
import { useGraphqlLimits } from './http/graphql-limits';
import { FieldRateLimiter } from './http/field-rate-limits';
import { databaseErrorFor } from './db/errors';
import { API_KEY_PREFIX, hashApiKey } from './auth/api-keys';
import { isUuid } from './validation';
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
import { VERSION } from './project-root';

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

const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

export async function startApp(config: Config): Promise<App> {
  const logger = createLogger(config.logLevel);
  const databaseServer = await openDatabaseServer(config, { role: 'server' });
  const stale = databaseServer.tookOverFrom;
  if (stale) logger.warn('took over DATA_DIR from a process that had stopped without closing it', { pid: stale.pid, holder: stale.command, openedAt: stale.openedAt });
  const applied = await applyMigrations(databaseServer.url);
  if (applied.length) logger.info('migrations applied', { migrations: applied });
  const database = connectDatabase(databaseServer.url, { poolSize: databaseServer.embedded ? 8 : 10, preparedStatements: config.preparedStatements && !databaseServer.embedded,
    // The embedded engine runs one session for every client and cannot cancel a statement.
    statementTimeoutMs: databaseServer.embedded ? null : config.statementTimeoutMs });
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
  const fieldLimits = new FieldRateLimiter({ redis, overrides: config.fieldRateLimits, logger });
  const lastUsed = new LastUsedRecorder(database.prisma, logger, config.lastUsedFlushMs);
  const requestLog = new RequestLogWriter(database.prisma, logger, config.requestLogFlushMs);

  const yoga = createYoga<{ meta: RequestMeta }, Context>({
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
          return new GraphQLError(known.message, { nodes: (error as GraphQLError).nodes, path: (error as GraphQLError).path, extensions: known.extensions });
        }
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
        await lastUsed.touch(session.principal.apiKeyId, session.principal.neverUsed);
        meta.rateLimit = await keyLimiter.consume(session.principal.apiKeyId, session.principal.rateLimitPerHour);
        if (meta.rateLimit.limited) throw rateLimited(meta.rateLimit);
      }
      return { requestId: meta.requestId, db: database.prisma, session, meta, auth, loaders: createLoaders(), services };
    },
    plugins: [
      useGraphqlEdge({ graphqlEndpoint: '/graphql', anonymousIntrospection: config.anonymousIntrospection }),
      useGraphqlLimits({ ...config.graphqlLimits, hideFieldSuggestions: !config.anonymousIntrospection }),
      <Plugin<Context>>{
        onRequest({ url, endResponse }) {
          if (url.pathname === '/') {
            endResponse(Response.json({ name: 'Dealership Data Platform', version: VERSION, rest: '/api/v1', docs: '/api/v1/docs', openapi: '/api/v1/openapi.json', graphql: '/graphql' }));
          } else if (url.pathname !== '/graphql' && !url.pathname.startsWith('/api/v1')) {
            endResponse(errorResponse(404, 'NOT_FOUND', `no such path ${url.pathname}; the REST API is under /api/v1, GraphQL at /graphql`));
          }
        },
        async onExecute({ args }) {
          const { meta, session } = args.contextValue as Context;
          meta.operation ??= args.operationName ?? null;
          // A key's hour counts operations, not HTTP requests: each further root field (aliases too)
          // is one more, as if sent alone. The first was counted when the session was made.
          const extra = rootFieldCount(args.document, args.operationName) - 1;
          if (session.principal.kind === 'apiKey' && extra > 0) {
            meta.rateLimit = await keyLimiter.consume(session.principal.apiKeyId, session.principal.rateLimitPerHour, extra);
            if (meta.rateLimit.limited) throw rateLimited(meta.rateLimit);
          }
        },
      },
      useRestApi({
        basePath: '/api/v1',
        title: 'Dealership Data Platform API',
        version: VERSION,
        onInternalError: (error) => logger.error('REST operation failed', { error }),
      }),
    ],
  });

  const http = createHttpServer({
    yoga: yoga as never, trustProxyHops: config.trustProxyHops, jwks: keys.jwks, maxBodyBytes: config.maxBodyBytes, requestLog, logger,
    headersTimeoutMs: config.headersTimeoutMs, requestTimeoutMs: config.requestTimeoutMs,
    async identify(authorization) {
      const credential = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
      if (!credential) return null;
      if (credential.startsWith(API_KEY_PREFIX)) return { apiKeyHash: hashApiKey(credential) };
      const { sub } = await auth.tokens.verify(credential);
      return sub && isUuid(sub) ? { userId: sub } : null;
    },
  });
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
        fieldLimits.close();
        await redis?.quit().catch(() => redis.disconnect());
        await database.close();
        await databaseServer.stop();
      })();
      return stopping;
    },
  };
}

/** Root fields an operation selects (aliases and fragments included; __typename is free). */
function rootFieldCount(document: DocumentNode, operationName: string | null | undefined): number {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION && (!operationName || definition.name?.value === operationName));
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return 1;
  const fragments = new Map(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [])));
  const count = (selectionSet: SelectionSetNode, seen: Set<string>): number => selectionSet.selections.reduce((total, selection) => {
    if (selection.kind === Kind.FIELD) return total + (selection.name.value === '__typename' ? 0 : 1);
    if (selection.kind === Kind.INLINE_FRAGMENT) return total + count(selection.selectionSet, seen);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || seen.has(selection.name.value)) return total;
    return total + count(fragment, new Set([...seen, selection.name.value]));
  }, 0);
  return count(operation.selectionSet, new Set());
}
