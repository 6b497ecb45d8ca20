import path from 'node:path';
import { printSchema } from 'graphql';
import { operationsMarkdown } from './http/operations-doc';
import { PROJECT_ROOT } from './project-root';
import { printableSchema, schema } from './schema';

/** schema.graphql: the printed schema, checked in so reviewers see every API change. */
export const SCHEMA_FILE = path.join(PROJECT_ROOT, 'schema.graphql');

export const printSchemaFile = () => `${printSchema(printableSchema())}\n`;

/** docs/operations.md: the catalog of operations, checked in beside schema.graphql for the same reason. */
export const OPERATIONS_FILE = path.join(PROJECT_ROOT, 'docs', 'operations.md');

// The declared schema, not the sorted one: routes on sibling paths keep the order they are declared in.
export const printOperationsFile = () => operationsMarkdown(schema);
