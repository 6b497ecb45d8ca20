import type { RestRoute } from './rest-routes';

/** Completes SOFA's OpenAPI document (errors, security) and renders a self-contained reference page. */

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', example: 'INVALID_ARGUMENT' },
        message: { type: 'string', example: 'limit: must be a whole number from 1 to 500' },
        details: { type: 'object', additionalProperties: true },
      },
    },
  },
};

const ERROR_RESPONSES: Record<string, string> = {
  400: 'Malformed or invalid input; the message names the field.',
  401: 'No credentials, or a bad, expired or revoked token or key.',
  403: 'Authenticated, but missing the scope this operation needs.',
  404: 'Unknown resource, or one outside your dealer groups.',
  429: 'Rate limited; retry after the Retry-After header.',
};

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI documents are free-form JSON

export function decorateOpenApi(document: Doc, routes: Record<string, RestRoute>): Doc {
  const doc: Doc = structuredClone(document);
  doc.info = { ...doc.info, description: 'The Dealership Data Platform REST API. Every call but login, refresh and health takes `Authorization: Bearer <token or API key>`. Errors share one shape: `{ "error": { "code", "message", "details"? } }`.' };
  doc.components ??= {};
  doc.components.schemas = { ...doc.components.schemas, Error: ERROR_SCHEMA };
  doc.components.securitySchemes = { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A user access token (RS256 JWT) from /auth/login, or an API key (svc_live_…).' } };
  doc.components.responses = Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, description]) => [
    `Error${status}`, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  ]));
  const byPath = new Map(Object.values(routes).map((route) => [`${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`, route]));
  for (const [path, operations] of Object.entries<Doc>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Doc>(operations)) {
      const route = byPath.get(`${method.toUpperCase()} ${path}`);
      const authenticated = route?.authenticated !== false;
      operation.security = authenticated ? [{ bearerAuth: [] }] : [];
      const statuses = authenticated ? ['400', '401', '403', '404', '429'] : ['400', '429'];
      for (const status of statuses) operation.responses[status] ??= { $ref: `#/components/responses/Error${status}` };
    }
  }
  return doc;
}

const escape = (text: unknown) => String(text ?? '').replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function typeLabel(schema: Doc | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return String(schema.$ref).split('/').pop() ?? '';
  if (schema.type === 'array') return `${typeLabel(schema.items)}[]`;
  if (schema.enum) return schema.enum.join(' | ');
  return schema.format ? `${schema.type} (${schema.format})` : (schema.type ?? 'object');
}

/** A readable HTML reference of every endpoint, its parameters and its response, with no external assets. */
export function renderReferencePage(document: Doc, basePath: string): string {
  const sections: string[] = [];
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries<Doc>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Doc>(operations)) {
      const parameters = (operation.parameters ?? []) as Doc[];
      const body = operation.requestBody?.content?.['application/json']?.schema;
      const success = Object.entries<Doc>(operation.responses ?? {}).find(([status]) => status.startsWith('2'));
      const rows = [
        ...parameters.map((parameter) => `<tr><td><code>${escape(parameter.name)}</code></td><td>${escape(parameter.in)}</td><td>${escape(typeLabel(parameter.schema))}</td><td>${parameter.required ? 'required' : ''}</td><td>${escape(parameter.description ?? parameter.schema?.description)}</td></tr>`),
        ...Object.entries<Doc>(body?.properties ?? {}).map(([name, schema]) => `<tr><td><code>${escape(name)}</code></td><td>body</td><td>${escape(typeLabel(schema))}</td><td>${(body?.required ?? []).includes(name) ? 'required' : ''}</td><td>${escape(schema.description)}</td></tr>`),
      ];
      const html = `<section class="op"><h3><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(basePath + path)}</code></h3>
<p>${escape(operation.description ?? '')}</p>${operation.security?.length ? '' : '<p class="open">No authentication.</p>'}
${rows.length ? `<table><tr><th>Name</th><th>In</th><th>Type</th><th></th><th>Description</th></tr>${rows.join('')}</table>` : ''}
<p>Returns <code>${escape(success?.[0] ?? '200')}</code> with <code>${escape(typeLabel(success?.[1]?.content?.['application/json']?.schema))}</code>.</p></section>`;
      for (const tag of operation.tags?.length ? operation.tags : ['Other']) byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  for (const [tag, operations] of byTag) sections.push(`<h2 id="${escape(tag)}">${escape(tag)}</h2>${operations.join('\n')}`);
  const nav = [...byTag.keys()].map((tag) => `<a href="#${escape(tag)}">${escape(tag)}</a>`).join(' · ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(document.info?.title)} reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1b1f24}code{font:13px ui-monospace,monospace}
.op{border:1px solid #d8dee4;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.m{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;color:#fff;font-size:13px;padding:0 .4em}
.get{background:#1f6feb}.post{background:#2da44e}.put,.patch{background:#bf8700}.delete{background:#cf222e}table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #eaeef2;padding:.25rem .5rem;text-align:left;vertical-align:top}.open{color:#57606a}</style></head>
<body><h1>${escape(document.info?.title)} <small>${escape(document.info?.version)}</small></h1><p>${escape(document.info?.description)}</p>
<p>Machine-readable: <a href="${escape(basePath)}/openapi.json">${escape(basePath)}/openapi.json</a> · GraphQL: <a href="/graphql">/graphql</a></p><nav>${nav}</nav>${sections.join('\n')}</body></html>`;
}
