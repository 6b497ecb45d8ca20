import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { FieldRateLimit } from './field-rate-limits';

/**
 * Each operation is one declaration: its GraphQL field carries its REST route (and any rate limit)
 * as field extensions, spread from `operation(...)`; the REST API and its OpenAPI document read the
 * routes back from the schema. A route cannot outlive its field, and a root field with neither a
 * route nor GRAPHQL_ONLY stops the server at start.
 */

/** An operation's REST route (relative to /api/v1), as read back from its field. */
export interface RestRoute {
  /** A few words for the reference page and generated clients ("List inventory"). */
  summary: string;
  method: RestMethod;
  path: string;
  tags: string[];
  responseStatus?: number;
  /** False for the few calls that take no credentials. */
  authenticated?: boolean;
  /** What the success answer means, when more than "Success." helps ("The key, shown once."). */
  responseDescription?: string;
  /** Besides JSON, the body may be a whole document of another media type (ADF for POST /leads). */
  documentBody?: DocumentBody;
  /**
   * A create-or-find write: the answer's boolean field saying whether it created anything. The
   * success status (201) stands when it did; an answer with an existing record is 200.
   */
  createdFlag?: string;
}

/** A body that is a document of its own media type, handed whole to one argument as text. */
export interface DocumentBody {
  /** The argument that receives the document. */
  argument: string;
  /** The media types it comes in, besides JSON ("application/xml"), without parameters. */
  mediaTypes: string[];
  /** The largest document taken, in bytes (413 beyond). */
  maxBytes: number;
  /** Arguments the query string may carry beside such a body, which holds nothing else. */
  queryArguments: string[];
  /** What the document is, for the reference. */
  description: string;
  example?: string;
}

type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Where a REST caller puts each argument: in the path when the route names it, else in the JSON body
 * for POST, PUT and PATCH, else in the query string. The server refuses it anywhere else, so a
 * password never travels in a URL.
 */
export function argumentPlace(route: Pick<RestRoute, 'method' | 'path'>, name: string): 'path' | 'query' | 'body' {
  if (route.path.split('/').includes(`:${name}`)) return 'path';
  return route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH' ? 'body' : 'query';
}

/** The reference's sections, in the order it lists them, with what each covers. */
export const REST_TAGS = {
  Auth: 'Sign in, refresh and sign out; the caller; passwords and invitations.',
  Inventory: 'Vehicles on the lot across your rooftops: lists with filters, totals, aging, facets and history.',
  'API keys': 'Scoped keys for partners and scripts: create, list, rotate and revoke.',
  'Logs and audit': 'Every request made to the API, and the security audit trail.',
  Dealers: 'Rooftops (dealership locations), their aliases in other systems, and matching a name to a rooftop.',
  Sources: 'Canonical lead and call sources, and the raw spellings mapped to them.',
  Calls: 'Phone calls from call tracking, merged across providers, with statistics.',
  Leads: 'Leads from CRMs and websites, with their status and statistics by type, status and source.',
  Sales: 'Deals from the DMS with gross, by rooftop and salesperson.',
  Partners: 'Vendors and agencies, and the rooftops and data each may see.',
  Integrations: 'Data feeds connected to rooftops: credentials, connection tests, syncs and freshness.',
  'Mapping templates': 'Reusable column mappings for feeds, including the community bank.',
  'File column mappings': "How each column of an integration's files maps to our fields.",
  'Multi-source': 'One vehicle merged from several feeds: source priorities, conflicts and rebuilds.',
  'SFTP credential emails': 'Sending SFTP account details to the people who deliver files.',
  Plugins: 'The feed formats and systems we can read, and their configuration.',
  'Transformation rules': 'Rules that clean and flag feed rows before they are written, with dry runs.',
  Administration: 'Health, users, usage and the assistant configuration.',
  'AI assistant': 'Questions in plain language about your data, answered from it.',
  Events: 'The change feed: every change the platform records, in order, after a cursor.',
  Webhooks: 'Endpoints that receive events as signed POSTs (Standard Webhooks), and their delivery log.',
} satisfies Record<string, string>;

export type RestTag = keyof typeof REST_TAGS;

/** How an operation differs from the common case: 200, signed in, no limit of its own. */
export interface OperationOptions {
  /** The success status when it is not 200: 201 for a creation, 202 for work started. */
  status?: number;
  /** Callable without credentials (sign-in, health). */
  public?: boolean;
  responseDescription?: string;
  /** A per-caller limit on this field (see field-rate-limits.ts). */
  rateLimit?: FieldRateLimit;
  documentBody?: DocumentBody;
  createdFlag?: string;
}

/**
 * The `operation` helper of one module's section: `...operation('GET /inventory', 'List inventory')`
 * in a root field's options. It fills the whole `extensions`, rate limit included, so the field
 * needs no second spread that would overwrite it.
 */
export function restOperations(tag: RestTag) {
  return (route: `${RestMethod} /${string}`, summary: string, options: OperationOptions = {}) => {
    const [method, path] = route.split(' ') as [RestMethod, string];
    const rest: RestRoute = {
      summary,
      method,
      path,
      tags: [tag],
      ...(options.status ? { responseStatus: options.status } : {}),
      ...(options.public ? { authenticated: false } : {}),
      ...(options.responseDescription ? { responseDescription: options.responseDescription } : {}),
      ...(options.documentBody ? { documentBody: options.documentBody } : {}),
      ...(options.createdFlag ? { createdFlag: options.createdFlag } : {}),
    };
    return { extensions: { rest, ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}) } };
  };
}

/** Who may call an operation: anyone, a caller holding a scope, only a signed-in admin user, or any signed-in caller. */
export type OperationAccess =
  { kind: 'public' } | { kind: 'scope'; scope: string } | { kind: 'adminUser' } | { kind: 'signedIn' };

/**
 * Who may call a root field, read from the scope rule it declares (`authScopes`, checked by the
 * builder's scope-auth plugin) and, for a public route, from the route. A field without a rule is
 * open to any signed-in caller.
 */
export function operationAccess(
  field: GraphQLField<unknown, unknown>,
  route?: Pick<RestRoute, 'authenticated'>,
): OperationAccess {
  if (route?.authenticated === false) return { kind: 'public' };
  const scopes = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes;
  if (scopes && typeof scopes === 'object') {
    const rule = scopes as { scope?: string; adminUser?: boolean; $any?: { scope?: string } };
    if (rule.scope) return { kind: 'scope', scope: rule.scope };
    if (rule.adminUser) return { kind: 'adminUser' };
    if (rule.$any?.scope) return { kind: 'scope', scope: rule.$any.scope };
  }
  return { kind: 'signedIn' };
}

/** Marks a field as GraphQL-only: the REST API (SOFA) does not select it, and a root field gets no route. */
export const GRAPHQL_ONLY = { extensions: { restHidden: true } } as const;

interface OperationExtensions {
  rest?: RestRoute;
  restHidden?: boolean;
}

/**
 * Every REST route by operation ("Query.inventory"), read from the root fields, in reference order.
 * Throws for a root field with no route and no GRAPHQL_ONLY, or two operations on one method and path.
 */
export function restRoutes(schema: GraphQLSchema): Record<string, RestRoute> {
  const routes: Array<[string, RestRoute]> = [];
  const taken = new Map<string, string>();
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const coordinate = `${type?.name}.${field.name}`;
      const route = declaredRoute(field, coordinate);
      if (!route) continue;
      const endpoint = `${route.method} ${route.path}`;
      if (taken.has(endpoint)) throw new Error(`${coordinate} and ${taken.get(endpoint)} both declare ${endpoint}`);
      taken.set(endpoint, coordinate);
      routes.push([coordinate, route]);
    }
  }
  return Object.fromEntries(inReferenceOrder(routes));
}

const METHOD_ORDER: RestMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The order the reference lists operations in, whichever of Query or Mutation declares them: by
 * section (REST_TAGS), then each path before the paths under it and fixed segments before
 * parameters ("/inventory/stats" before "/inventory/:vin"), siblings as first declared, then by method.
 */
function inReferenceOrder(routes: Array<[string, RestRoute]>): Array<[string, RestRoute]> {
  const firstSeen = new Map<string, number>();
  const segmentKeys = (path: string) =>
    path
      .split('/')
      .slice(1)
      .map((segment, index, segments) => {
        const prefix = segments.slice(0, index + 1).join('/');
        if (!firstSeen.has(prefix)) firstSeen.set(prefix, firstSeen.size);
        return [segment.startsWith(':') ? 1 : 0, firstSeen.get(prefix)!];
      })
      .flat();
  const sections = Object.keys(REST_TAGS);
  const keys = new Map(
    routes.map(([coordinate, route]) => [
      coordinate,
      [sections.indexOf(route.tags[0]!), ...segmentKeys(route.path), -1, METHOD_ORDER.indexOf(route.method)],
    ]),
  );
  return [...routes].sort(([a], [b]) => compareKeys(keys.get(a)!, keys.get(b)!));
}

/** Compares number lists element by element; a list that is a prefix of another sorts first. */
function compareKeys(a: number[], b: number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    if (a[index] !== b[index]) return a[index]! - b[index]!;
  }
  return a.length - b.length;
}

/** A root field's route, or null when it is GraphQL-only; throws when it declares neither or both. */
function declaredRoute(field: GraphQLField<unknown, unknown>, coordinate: string): RestRoute | null {
  const { rest, restHidden } = (field.extensions ?? {}) as OperationExtensions;
  if (rest && restHidden) throw new Error(`${coordinate} declares a REST route and GRAPHQL_ONLY: keep one`);
  if (!rest && !restHidden)
    throw new Error(
      `${coordinate} has no REST route: add ...operation('METHOD /path', 'summary') to its options or mark it GRAPHQL_ONLY`,
    );
  if (rest && !(rest.tags[0]! in REST_TAGS)) throw new Error(`${coordinate}: unknown REST tag ${rest.tags[0]}`);
  return rest ?? null;
}
