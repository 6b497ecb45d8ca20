import path from 'node:path';
import { printSchema } from 'graphql';
import { printableSchema } from './schema';

/** schema.graphql: the printed schema, checked in so reviewers see every API change. */
export const SCHEMA_FILE = path.resolve(import.meta.dirname, '../schema.graphql');

export const printSchemaFile = () => `${printSchema(printableSchema())}\n`;
