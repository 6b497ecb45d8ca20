import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded';
const s = await startEmbeddedPostgres(null);
for (const url of [s.url, 'postgresql://postgres@127.0.0.1:5432/postgres']) {
  const c = new pg.Client({ connectionString: url }); await c.connect();
  const r = await c.query(`select c.relkind, 'a'::"char" as ch from pg_class c limit 1`);
  console.log(url.slice(0,30), r.fields.map(f => [f.name, f.dataTypeID]), r.rows);
  await c.end();
}
await s.stop();
