import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The checkout's root (where package.json, prisma/ and schema.graphql live), found by walking up from
 * this module, so files resolve the same from src/ under tsx and from the compiled bundle in dist/.
 */
function findProjectRoot(start: string): string {
  for (let directory = start; ; directory = path.dirname(directory)) {
    const manifest = path.join(directory, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'dealership-data-platform'
    )
      return directory;
    if (path.dirname(directory) === directory)
      throw new Error(`no dealership-data-platform package.json above ${start}`);
  }
}

export const PROJECT_ROOT = findProjectRoot(import.meta.dirname);

/** The release, from package.json: what /health, the root document and the OpenAPI document report. */
export const VERSION = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
