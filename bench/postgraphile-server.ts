// The peer the inventory benchmark measures against: PostGraphile 5 serving GraphQL over the same
// database, set up as its documentation shows (amber preset, the connection-filter plugin).
// Started by bench/inventory.bench.ts as a child process, so it has its own event loop and heap:
// `node --import tsx bench/postgraphile-server.ts` with DATABASE_URL; prints `listening <url>`.
import http from 'node:http';

// PostGraphile 5 declares Node 22; on Node 20 it needs Promise.withResolvers, nothing else.
const promises = Promise as unknown as { withResolvers?: () => unknown };
promises.withResolvers ??= () => {
  let resolve!: (value: unknown) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
};

const { postgraphile } = await import('postgraphile');
const { PostGraphileAmberPreset } = await import('postgraphile/presets/amber');
const { makePgService } = await import('postgraphile/adaptors/pg');
const { grafserv } = await import('postgraphile/grafserv/node');
const { jsonPgSmartTags } = await import('postgraphile/utils');
const { PostGraphileConnectionFilterPreset } = await import('postgraphile-plugin-connection-filter');

const connectionString = process.env.DATABASE_URL;
if (!connectionString) throw new Error('DATABASE_URL is required');

const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
  // Filtering and sorting on any column, as the benchmark's questions need (by default only indexed leading columns).
  disablePlugins: ['PgIndexBehaviorsPlugin'],
  // The enum vehicle_condition and the vehicles table's condition input would both be VehicleCondition.
  plugins: [
    jsonPgSmartTags({
      version: 1,
      config: { type: { vehicle_condition: { tags: { name: 'VehicleConditionKind' } } } },
    }),
  ],
  pgServices: [makePgService({ connectionString, schemas: ['public'] })],
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = http.createServer();
serv.addTo(server);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}/graphql`);

const stop = () => {
  server.close();
  void Promise.resolve(pgl.release()).finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
