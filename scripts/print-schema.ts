// Writes the printed GraphQL schema to schema.graphql (`npm run schema:print`).
import { writeFileSync } from 'node:fs';
import { printSchemaFile, SCHEMA_FILE } from '../src/schema-file';
import { helpRequested } from './usage';

helpRequested('usage: npm run schema:print    rewrite schema.graphql from the GraphQL schema');

writeFileSync(SCHEMA_FILE, printSchemaFile());
console.log(`wrote ${SCHEMA_FILE}`);
