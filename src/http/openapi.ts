import {
  getNamedType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { argumentPlace, operationAccess, type RestRoute } from './operations';
import { OPENAPI_EXAMPLES } from './openapi-examples';
import { LIMIT_DEFAULT, LIMIT_MAX, OFFSET_MAX } from '../pagination';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency';

/**
 * Builds the OpenAPI 3.1 document of the REST API from the GraphQL operations and their routes: the
 * same schema SOFA serves, so the document cannot drift from the answers. Written here rather than
 * taken from SOFA, whose document lists body fields as query parameters, leaks nested argument names
 * and references scalar schemas it never defines.
 *
 * Lint: `npx @redocly/cli lint` (recommended) and `npx @stoplight/spectral-cli lint` (spectral:oas)
 * report no errors and no warnings; test/openapi.test.ts runs both on the served document.
 */

type Schema = Record<string, unknown>;
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI documents are free-form JSON

export interface OpenApiOptions {
  schema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  basePath: string;
  title: string;
  version: string;
  tags: Record<string, string>;
}

/** How each custom scalar travels on the wire. */
const SCALARS: Record<string, Schema> = {
  Money: {
    type: 'string',
    pattern: '^-?\\d{1,10}\\.\\d{2}$',
    description:
      'An amount as a decimal string with two fraction digits, never a float. Input also accepts "18995" or 18995.',
    examples: ['18995.00'],
  },
  DateTime: {
    type: 'string',
    format: 'date-time',
    description:
      'An instant in ISO 8601, UTC on output. Input also accepts a date ("2026-01-31"), meaning its midnight UTC.',
    examples: ['2026-01-31T17:04:05.000Z'],
  },
  Date: { type: 'string', format: 'date', description: 'A calendar date in ISO 8601.', examples: ['2026-01-31'] },
  JSON: { description: 'Any JSON value.' },
};

const BUILT_IN: Record<string, Schema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
};

/** The longest string the REST layer accepts in one value (rest-api.ts checks it). */
const MAX_STRING = 10_000;

const ERROR_SCHEMA: Schema = {
  type: 'object',
  description: 'Every error has this shape; `code` is stable, `message` says which field and why.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'A stable, machine-readable code.', examples: ['INVALID_ARGUMENT'] },
        message: {
          type: 'string',
          description: 'What went wrong, naming the field.',
          examples: ['limit: must be a whole number from 1 to 500'],
        },
        details: {
          type: 'object',
          additionalProperties: true,
          description: 'Extra facts, such as the field or the limit.',
        },
      },
    },
  },
};

const HEADERS: Record<string, Schema> = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: "The API key's requests per hour.", schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  'X-Request-Id': {
    description: 'Identifies the request in the request log; send your own to correlate.',
    schema: { type: 'string' },
  },
  ETag: {
    description:
      'A strong entity tag of this answer (a digest of its bytes): send it back in `If-None-Match` to get 304 while the answer is unchanged.',
    schema: { type: 'string', examples: ['"1UaegYsjgOBpnySddx1PmqrXHW4wl34kBiAg_vBXlFI"'] },
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this is the first answer to the same `Idempotency-Key`, given again.',
    schema: { type: 'string', enum: ['true'] },
  },
};
const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** The request headers of conditional reads and idempotent writes, referenced by the operations that take them. */
const PARAMETERS: Record<string, Schema> = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'Entity tags of answers you have (`"…"` or `W/"…"`, comma-separated), or `*`: when the answer still has one of them, 304 without a body, not counted against the key\'s hourly budget. A malformed value is a 400.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of your choosing (a UUID, say) that makes retrying this write safe: within 24 hours the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and nothing runs twice; with another request it is a 422, and while the first still runs a 409. Keys belong to the caller (API key or user). 400, 401, 403, 429 and 5xx answers are not kept, so a retry (or a corrected request) runs again.',
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[ -~]+$' },
  },
};
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

const headerRefs = (names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const NOT_MODIFIED: Schema = {
  description:
    "The answer has not changed since the one whose entity tag `If-None-Match` named; no body, and not counted against the API key's hourly budget.",
  headers: headerRefs(['ETag', 'X-Request-Id', ...RATE_HEADERS]),
};

interface ErrorResponse {
  name: string;
  description: string;
  headers?: string[];
  example: [string, string];
}

const ERRORS: Record<string, ErrorResponse> = {
  400: {
    name: 'BadRequest',
    description: 'Malformed or invalid input; the message names the field and why.',
    example: ['INVALID_ARGUMENT', 'limit: must be a whole number from 1 to 500'],
  },
  401: {
    name: 'Unauthorized',
    description: 'No credentials, or a bad, expired or revoked token or key.',
    example: ['UNAUTHENTICATED', 'missing credentials: send Authorization: Bearer <token or API key>'],
  },
  403: {
    name: 'Forbidden',
    description: 'Authenticated, but missing the scope or role this operation needs.',
    example: ['FORBIDDEN', 'missing scope inventory:read'],
  },
  404: {
    name: 'NotFound',
    description: 'Unknown resource, or one outside your dealer groups.',
    example: ['NOT_FOUND', 'dealer not found'],
  },
  409: {
    name: 'Conflict',
    description:
      'The change conflicts with the current state (a duplicate, or a run already in progress), or a request with the same `Idempotency-Key` is still running (`IDEMPOTENCY_KEY_IN_USE`, with `Retry-After`).',
    headers: ['Retry-After'],
    example: ['CONFLICT', 'a dealer with code DEN-01 already exists'],
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The request body is larger than the server accepts.',
    example: ['PAYLOAD_TOO_LARGE', 'the request body is larger than 1048576 bytes'],
  },
  422: {
    name: 'IdempotencyKeyReused',
    description: 'The `Idempotency-Key` was used within the last 24 hours with another method, path or body.',
    example: [
      'IDEMPOTENCY_KEY_REUSED',
      'Idempotency-Key: this key was used within the last 24 hours with a different request (another body); send a new key for a new request',
    ],
  },
  415: {
    name: 'UnsupportedMediaType',
    description:
      'A body that is not `application/json` (nor one of the document types an operation takes besides it), or in a charset the server cannot read.',
    example: ['UNSUPPORTED_MEDIA_TYPE', 'send the body as JSON with Content-Type: application/json'],
  },
  429: {
    name: 'TooManyRequests',
    description: "Rate limited: the key's hourly budget, or an operation's own limit, is spent.",
    headers: ['Retry-After', ...RATE_HEADERS],
    example: ['RATE_LIMITED', 'rate limit of 1000 requests per hour exceeded'],
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'The database is unreachable, or the request outlasted the statement time limit.',
    headers: ['Retry-After'],
    example: ['QUERY_TIMEOUT', 'the query took too long; narrow the filters or try again'],
  },
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Collects the named types the operations use, so only those become components. */
class SchemaRegistry {
  readonly components: Record<string, Schema> = {};

  constructor(private readonly graphql: GraphQLSchema) {}

  /** A JSON Schema for a GraphQL type as REST sends or receives it; `nullable` for fields without `!`. */
  typeSchema(type: GraphQLOutputType | GraphQLInputType, nullable = !isNonNullType(type)): Schema {
    const inner = isNonNullType(type) ? type.ofType : type;
    let schema: Schema;
    if (isListType(inner)) schema = { type: 'array', items: this.typeSchema(inner.ofType) };
    else schema = this.named(inner as GraphQLNamedType);
    if (!nullable) return schema;
    if (schema.$ref) return { anyOf: [schema, { type: 'null' }] };
    if (schema.type === undefined) return schema;
    return { ...schema, type: [schema.type, 'null'] };
  }

  /** Built-in scalars inline; custom scalars, enums and objects as components. */
  private named(type: GraphQLNamedType): Schema {
    if (BUILT_IN[type.name]) return { ...BUILT_IN[type.name] };
    // JSON takes any value, so it cannot carry a sibling `null` type: it is used inline.
    if (type.name === 'JSON') return { ...SCALARS.JSON };
    if (!this.components[type.name]) {
      this.components[type.name] = {}; // reserved first: object types may refer to themselves
      this.components[type.name] = this.define(type);
    }
    return ref(type.name);
  }

  private define(type: GraphQLNamedType): Schema {
    if (isScalarType(type)) {
      const scalar = SCALARS[type.name];
      if (!scalar) throw new Error(`scalar ${type.name} has no OpenAPI mapping: add it to SCALARS`);
      return { title: type.name, ...scalar };
    }
    if (isEnumType(type))
      return {
        title: type.name,
        type: 'string',
        enum: type.getValues().map((value) => value.name),
        ...(type.description ? { description: type.description } : {}),
      };
    if (isObjectType(type) || isInterfaceType(type)) {
      const fields = Object.values(type.getFields());
      return {
        title: type.name,
        type: 'object',
        ...(type.description ? { description: type.description } : {}),
        // REST answers carry every field, null when empty, so all are required and the nullable ones say so.
        required: fields.map((field) => field.name),
        properties: Object.fromEntries(fields.map((field) => [field.name, this.fieldSchema(field)])),
      };
    }
    throw new Error(`${type.name}: unions and input objects are not used by the REST operations`);
  }

  private fieldSchema(field: GraphQLField<unknown, unknown>): Schema {
    const schema = this.typeSchema(field.type);
    return field.description ? withDescription(schema, field.description) : schema;
  }

  /** An argument's schema, with the allowed values and bounds it declares. */
  argumentSchema(arg: GraphQLArgument, inQuery: boolean): Schema {
    const named = getNamedType(arg.type);
    const declared = {
      ...(named.name === 'Int' ? LIST_CONVENTION[arg.name] : undefined),
      ...(arg.extensions as { openapi?: ArgumentConstraints }).openapi,
    };
    // A query string has no null; an absent parameter is the default.
    let schema = this.typeSchema(arg.type, inQuery ? false : !isNonNullType(arg.type));
    schema = constrain(schema, declared, named.name);
    return schema;
  }
}

/** The list convention (pagination.ts), for every `limit` and `offset` that does not declare its own. */
const LIST_CONVENTION: Record<string, ArgumentConstraints> = {
  limit: { minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT, description: `Items per page, 1-${LIMIT_MAX}.` },
  offset: { minimum: 0, maximum: OFFSET_MAX, default: 0, description: 'Items to skip, from 0.' },
};

/** What an argument may declare beyond its GraphQL type (see schema-args.ts). */
export interface ArgumentConstraints {
  enum?: readonly string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  maxLength?: number;
  example?: unknown;
  description?: string;
}

function constrain(schema: Schema, constraints: ArgumentConstraints, typeName: string): Schema {
  if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type[0] === 'array')) {
    return {
      ...schema,
      items: constrain(schema.items as Schema, { ...constraints, default: undefined }, typeName),
      ...(constraints.default === undefined ? {} : { default: constraints.default }),
    };
  }
  const result: Schema = { ...schema };
  if (constraints.pattern) result.pattern = constraints.pattern;
  if (constraints.enum) result.enum = [...constraints.enum, ...(Array.isArray(schema.type) ? [null] : [])];
  if (constraints.minimum !== undefined) result.minimum = constraints.minimum;
  if (constraints.maximum !== undefined) result.maximum = constraints.maximum;
  if (constraints.default !== undefined) result.default = constraints.default;
  if (typeName === 'String' && !constraints.enum && !constraints.pattern)
    result.maxLength = constraints.maxLength ?? MAX_STRING;
  if (constraints.example !== undefined) result.examples = [constraints.example];
  return result;
}

function withDescription(schema: Schema, description: string): Schema {
  // A $ref with siblings is valid in 3.1, but several generators drop them: wrap instead.
  return schema.$ref ? { allOf: [schema], description } : { ...schema, description };
}

type RootField = GraphQLField<unknown, unknown>;

/** Who may call a field (operations.ts reads it from the scope rule), in words for the description. */
function accessNote(field: RootField, route: RestRoute): string {
  const access = operationAccess(field, route);
  switch (access.kind) {
    case 'public':
      return 'No authentication.';
    case 'scope':
      return `Requires the \`${access.scope}\` scope.`;
    case 'adminUser':
      return 'Admin users only (API keys cannot call it).';
    case 'signedIn':
      return 'Any signed-in user or API key.';
  }
}

/** Writes that take an Idempotency-Key: POST and PATCH with a caller to tie the key to (rest-api.ts). */
const takesIdempotencyKey = (route: RestRoute) =>
  (route.method === 'POST' || route.method === 'PATCH') && route.authenticated !== false;

function errorStatuses(route: RestRoute, field: RootField, hasPathParams: boolean): string[] {
  const statuses = ['400'];
  if (route.authenticated !== false) statuses.push('401', '403');
  if (hasPathParams || route.authenticated !== false) statuses.push('404');
  const conflicts =
    route.method !== 'GET' && field.name !== 'login' && field.name !== 'refresh' && field.name !== 'logout';
  // A request whose Idempotency-Key is still running is a 409 on any write that takes one.
  if (conflicts || takesIdempotencyKey(route)) statuses.push('409');
  if (BODY_METHODS.has(route.method)) statuses.push('413', '415');
  if (takesIdempotencyKey(route)) statuses.push('422');
  statuses.push('429', '503');
  return statuses;
}

/** The OpenAPI document for every REST route. */
export function buildOpenApiDocument(options: OpenApiOptions): Doc {
  const registry = new SchemaRegistry(options.schema);
  const paths: Record<string, Record<string, Doc>> = {};
  const usedErrors = new Set<string>();
  const usedTags = new Set<string>();
  const operationIds = new Set<string>();

  for (const [coordinate, route] of Object.entries(options.routes)) {
    const [typeName, fieldName] = coordinate.split('.') as [string, string];
    const field = (
      typeName === 'Query' ? options.schema.getQueryType() : options.schema.getMutationType()
    )?.getFields()[fieldName];
    if (!field) continue;
    if (operationIds.has(field.name)) throw new Error(`two REST operations are named ${field.name}`);
    operationIds.add(field.name);
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: Doc[] = [];
    const bodyProperties: Record<string, Schema> = {};
    const bodyRequired: string[] = [];
    for (const arg of field.args) {
      const place = argumentPlace(route, arg.name);
      const description =
        arg.description ?? (getNamedType(arg.type).name === 'Int' ? LIST_CONVENTION[arg.name]?.description : undefined);
      if (place === 'body') {
        const schema = registry.argumentSchema(arg, false);
        bodyProperties[arg.name] = description ? withDescription(schema, description) : schema;
        if (isNonNullType(arg.type)) bodyRequired.push(arg.name);
        continue;
      }
      const schema = registry.argumentSchema(arg, true);
      parameters.push({
        name: arg.name,
        in: place,
        required: place === 'path' || isNonNullType(arg.type),
        description:
          description ??
          (place === 'path'
            ? `The ${arg.name === 'id' ? 'resource' : arg.name.replace(/Id$/, '')} id.`
            : arg.name.replace(/_/g, ' ')),
        schema,
        ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
      });
    }
    const document = route.documentBody;
    for (const name of document?.queryArguments ?? []) {
      const arg = field.args.find((candidate) => candidate.name === name);
      if (!arg) throw new Error(`${coordinate}: the document body names an unknown argument ${name}`);
      parameters.push({
        name,
        in: 'query',
        required: false,
        description: `Only beside a ${document!.mediaTypes[0]} body; a JSON body carries it itself.`,
        schema: registry.argumentSchema(arg, true),
      });
    }
    if (route.method === 'GET') parameters.push(parameterRef('IfNoneMatch'));
    if (takesIdempotencyKey(route)) parameters.push(parameterRef('IdempotencyKey'));
    const examples = OPENAPI_EXAMPLES[field.name];
    const success = String(route.responseStatus ?? 200);
    const successHeaders = route.authenticated === false ? ['X-Request-Id'] : ['X-Request-Id', ...RATE_HEADERS];
    if (route.method === 'GET') successHeaders.push('ETag');
    if (takesIdempotencyKey(route)) successHeaders.push('Idempotent-Replayed');
    const statuses = errorStatuses(route, field, path.includes('{'));
    for (const status of statuses) usedErrors.add(status);
    for (const tag of route.tags) usedTags.add(tag);
    const successResponse = {
      description: route.responseDescription ?? 'Success.',
      headers: headerRefs(successHeaders),
      content: {
        'application/json': {
          schema: registry.typeSchema(field.type, false),
          ...(examples?.response ? { example: examples.response } : {}),
        },
      },
    };
    const operation: Doc = {
      operationId: field.name,
      summary: route.summary,
      description: [field.description ?? route.summary, accessNote(field, route)].filter(Boolean).join('\n\n'),
      tags: route.tags,
      security: route.authenticated === false ? [] : [{ bearerAuth: [] }],
      ...(parameters.length ? { parameters } : {}),
      responses: {
        [success]: successResponse,
        ...(route.createdFlag
          ? {
              200: {
                ...successResponse,
                description: `Nothing was created: the answer holds the existing record (\`${route.createdFlag}\` is false).`,
              },
            }
          : {}),
        ...(route.method === 'GET' ? { 304: { $ref: '#/components/responses/NotModified' } } : {}),
        ...Object.fromEntries(
          statuses.map((status) => [status, { $ref: `#/components/responses/${ERRORS[status]!.name}` }]),
        ),
      },
    };
    if (Object.keys(bodyProperties).length) {
      const bodyName = `${pascal(field.name)}Body`;
      registry.components[bodyName] = {
        title: bodyName,
        type: 'object',
        additionalProperties: false,
        ...(bodyRequired.length ? { required: bodyRequired } : {}),
        properties: bodyProperties,
      };
      operation.requestBody = {
        required: bodyRequired.length > 0,
        content: {
          'application/json': { schema: ref(bodyName), ...(examples?.request ? { example: examples.request } : {}) },
          ...Object.fromEntries(
            (document?.mediaTypes ?? []).map((mediaType) => [
              mediaType,
              {
                schema: { type: 'string', maxLength: document!.maxBytes, description: document!.description },
                ...(document!.example ? { example: document!.example } : {}),
              },
            ]),
          ),
        },
      };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      summary: 'Inventory, calls, leads and sales of your dealerships, from every system they run.',
      description: INFO_DESCRIPTION,
      contact: { name: 'Dealership Data Platform support', url: 'https://dealership-data.example.org/support' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: options.basePath, description: 'This server' }],
    security: [{ bearerAuth: [] }],
    tags: [...usedTags].map((name) => ({ name, description: options.tags[name] ?? name })),
    paths,
    components: {
      schemas: { ...sortedByName(registry.components), Error: ERROR_SCHEMA },
      parameters: PARAMETERS,
      responses: Object.fromEntries([
        ['NotModified', NOT_MODIFIED],
        ...[...usedErrors].sort().map((status) => {
          const error = ERRORS[status]!;
          return [
            error.name,
            {
              description: error.description,
              ...(error.headers ? { headers: headerRefs(error.headers) } : {}),
              content: {
                'application/json': {
                  schema: ref('Error'),
                  example: { error: { code: error.example[0], message: error.example[1] } },
                },
              },
            },
          ];
        }),
      ]),
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A user access token (RS256 JWT) from POST /auth/login, or an API key (svc_live_…).',
        },
      },
    },
  };
}

function sortedByName<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

const INFO_DESCRIPTION = `The Dealership Data Platform REST API: one view of inventory, calls, leads and sales across the systems a dealership runs. Every operation is also a GraphQL field at \`/graphql\`.

**Authentication.** Every call but login, refresh, invitation acceptance and health takes \`Authorization: Bearer <token>\`, where the token is a user access token from \`POST /auth/login\` or an API key (\`svc_live_…\`) with its own scopes.

**Conventions.** Lists take \`limit\` (1-500, default 50) and \`offset\` and answer \`{ pagination: { total, limit, offset }, … }\`. The lists syncs change (inventory, calls, leads, sales) also take \`after\`, a page's \`pagination.next_cursor\`, for the page after it, in the same sort: a walk that neither skips nor repeats a row that stays put while others change. Money is a decimal string ("18995.00"); times are ISO 8601 in UTC. GET and DELETE take query parameters; POST, PUT and PATCH take a JSON body (\`POST /leads\` also takes an ADF lead as \`application/xml\`). A write that finds its record already stored answers 200 with \`created: false\` instead of 201. Unknown parameters and body fields are refused, naming them.

**Errors.** One shape everywhere: \`{ "error": { "code", "message", "details"? } }\`. 400 invalid input (the message names the field), 401 no or bad credentials, 403 missing scope or role, 404 unknown resource or one outside your dealer groups, 405 a method the path does not support (the \`Allow\` header lists those it does), 409 conflict, 413 body too large, 415 body not JSON (nor a document type the operation takes), 422 an \`Idempotency-Key\` reused for another request, 429 rate limited (\`Retry-After\`, \`RateLimit-*\`), 503 database unavailable or a query past its time limit (\`Retry-After\`).

**Rate limits.** API keys have an hourly budget (\`rateLimitPerHour\`), reported on every answer in \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; some expensive operations have their own per-minute limits.

**Cheap re-reads.** Every successful GET answer carries an \`ETag\`. Send it back in \`If-None-Match\`: while the answer is unchanged you get \`304 Not Modified\` without a body, and it is not counted against the key's hourly budget.

**Repeated inventory reads.** \`GET /inventory\` and its aggregates (stats, aging, facets) answer a caller's repeated question from memory until that dealer group's vehicles or rooftops change (any change, by anyone, forgets it as it commits); the \`Cache-Status\` header says \`ddp; hit\` then. Send \`Cache-Control: no-cache\` for an answer computed now.

**Safe retries.** Send an \`Idempotency-Key\` (any unique string up to 255 characters, a UUID say) with a POST or PATCH: for 24 hours the same key with the same request gets the first answer again, marked \`Idempotent-Replayed: true\`, and nothing runs twice. The same key with another request is a 422; while the first request still runs, a 409.`;
