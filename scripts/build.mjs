// Compiles the server and its command-line tools to plain JavaScript in dist/ for production:
// one ESM bundle per entry point, dependencies left in node_modules, source maps for stack traces.
// Files are replaced by rename and only when they changed, so a process starting from dist/ while
// another build runs never reads half a file.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const entryPoints = {
  main: 'src/main.ts',
  migrate: 'scripts/migrate.ts',
  seed: 'scripts/seed.ts',
  sync: 'scripts/sync.ts',
};
const outdir = path.resolve('dist');

const started = Date.now();
const { outputFiles } = await build({
  entryPoints,
  outdir,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  write: false,
});

const unchanged = (file, contents) => {
  try {
    return Buffer.compare(readFileSync(file), contents) === 0;
  } catch {
    return false;
  }
};

const written = new Set();
for (const { path: file, contents } of outputFiles) {
  written.add(file);
  if (unchanged(file, contents)) continue;
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}
// Chunks of earlier builds are gone from the new entry points; leave other builds' temporary files alone.
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const file = path.join(entry.parentPath, entry.name);
  if (entry.isFile() && !written.has(file) && !file.endsWith('.tmp')) rmSync(file);
}
console.log(
  `built ${Object.keys(entryPoints)
    .map((name) => `dist/${name}.js`)
    .join(', ')} in ${Date.now() - started} ms`,
);
