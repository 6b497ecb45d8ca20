// Writes the printed GraphQL schema to schema.graphql (`npm run schema:print`).
import { writeFileSync } from 'node:fs';
import { printSchemaFile, SCHEMA_FILE } from '../src/schema-file';

writeFileSync(SCHEMA_FILE, printSchemaFile());
console.log(`wrote ${SCHEMA_FILE}`);
