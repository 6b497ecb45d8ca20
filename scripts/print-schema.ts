// Writes the printed GraphQL schema to schema.graphql and the catalog of operations to docs/operations.md (`npm run schema:print`).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS_FILE, printOperationsFile, printSchemaFile, SCHEMA_FILE } from '../src/schema-file';
import { helpRequested } from './usage';

helpRequested('usage: npm run schema:print    rewrite schema.graphql and docs/operations.md from the GraphQL schema');

writeFileSync(SCHEMA_FILE, printSchemaFile());
console.log(`wrote ${SCHEMA_FILE}`);
mkdirSync(path.dirname(OPERATIONS_FILE), { recursive: true });
writeFileSync(OPERATIONS_FILE, printOperationsFile());
console.log(`wrote ${OPERATIONS_FILE}`);
