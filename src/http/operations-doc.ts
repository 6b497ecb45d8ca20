import { isObjectType, type GraphQLSchema } from 'graphql';
import { operationAccess, REST_TAGS, restRoutes, type OperationAccess, type RestRoute } from './operations';

/**
 * docs/operations.md, the catalog of operations: every REST route by section with its GraphQL
 * field, who may call it, its success status and summary, then the GraphQL-only fields. Rendered
 * from the same schema the server reads its routes from, so the catalog cannot drift from the API.
 */

/** Who may call an operation, in a few words for a table cell. */
function accessCell(access: OperationAccess): string {
  switch (access.kind) {
    case 'public':
      return 'none (public)';
    case 'scope':
      return `\`${access.scope}\``;
    case 'adminUser':
      return 'admin user (no API key)';
    case 'signedIn':
      return 'any user or API key';
  }
}

/** A value made safe for one cell of a Markdown table. */
const cell = (value: string) => value.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

const rootFields = (schema: GraphQLSchema) =>
  [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
    type ? Object.values(type.getFields()).map((field) => ({ coordinate: `${type.name}.${field.name}`, field })) : [],
  );

const isGraphqlOnly = (field: { extensions?: unknown }) =>
  Boolean((field.extensions as { restHidden?: boolean } | undefined)?.restHidden);

const HEADER = `# Operations

Generated from the GraphQL schema by \`npm run schema:print\` (with schema.graphql); do not edit it
by hand, change the operation's declaration beside its field instead. A test fails when it is stale.

Each operation is a GraphQL root field at \`/graphql\` and, unless it is GraphQL-only, a REST route;
REST paths are relative to \`/api/v1\`. Arguments, answers and errors are in the OpenAPI document at
\`/api/v1/openapi.json\` (browsable at \`/api/v1/docs\`) and in the GraphQL schema at \`/graphql\`
(also schema.graphql). "Needs" is the scope a caller must hold (a user's role grants scopes, an
API key holds its own), "admin user" a signed-in admin (no API key, whatever its scopes), and
"none" no credentials at all.`;

/** The success status; a create-or-find write answers 200 when it found the record instead. */
const statusCell = (route: RestRoute) =>
  route.createdFlag ? `${route.responseStatus ?? 200} (200 if it exists)` : String(route.responseStatus ?? 200);

/** The catalog of operations as Markdown, in the order of the REST reference. */
export function operationsMarkdown(schema: GraphQLSchema): string {
  const fields = new Map(rootFields(schema).map(({ coordinate, field }) => [coordinate, field]));
  const routes = Object.entries(restRoutes(schema));
  const sections = Object.entries(REST_TAGS).flatMap(([tag, description]) => {
    const rows = routes
      .filter(([, route]) => route.tags[0] === tag)
      .map(([coordinate, route]) => {
        const field = fields.get(coordinate)!;
        return `| \`${route.method} ${route.path}\` | \`${coordinate}\` | ${accessCell(operationAccess(field, route))} | ${statusCell(route)} | ${cell(route.summary)} |`;
      });
    if (!rows.length) return [];
    return [
      `## ${tag}\n\n${description}\n\n| REST | GraphQL | Needs | Status | Summary |\n|---|---|---|---|---|\n${rows.join('\n')}`,
    ];
  });
  return `${[HEADER, ...sections, graphqlOnlySection(schema)].join('\n\n')}\n`;
}

/** The root fields without a REST route, and the fields of other types that REST answers leave out. */
function graphqlOnlySection(schema: GraphQLSchema): string {
  const roots = rootFields(schema)
    .filter(({ field }) => isGraphqlOnly(field))
    .sort((a, b) => a.coordinate.localeCompare(b.coordinate));
  const rootList = roots.length
    ? `| GraphQL | Needs | Description |\n|---|---|---|\n${roots
        .map(
          ({ coordinate, field }) =>
            `| \`${coordinate}\` | ${accessCell(operationAccess(field))} | ${cell(field.description ?? '')} |`,
        )
        .join('\n')}`
    : 'None: every root field has a REST route.';
  const rootTypes = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name]);
  const nested = Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && !rootTypes.has(type.name) && !type.name.startsWith('__'))
    .flatMap((type) =>
      isObjectType(type)
        ? Object.values(type.getFields())
            .filter(isGraphqlOnly)
            .map((field) => `\`${type.name}.${field.name}\``)
        : [],
    )
    .sort();
  const nestedList = nested.length
    ? `\n\nFields of other types that only GraphQL selects (REST answers leave them out): ${nested.join(', ')}.`
    : '';
  return `## GraphQL only\n\nRoot fields without a REST route.\n\n${rootList}${nestedList}`;
}
