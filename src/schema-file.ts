import path from 'node:path';
import { printSchema } from 'graphql';
import { PROJECT_ROOT } from './project-root';
import { printableSchema } from './schema';

/** schema.graphql: the printed schema, checked in so reviewers see every API change. */
export const SCHEMA_FILE = path.join(PROJECT_ROOT, 'schema.graphql');

export const printSchemaFile = () => `${printSchema(printableSchema())}\n`;
