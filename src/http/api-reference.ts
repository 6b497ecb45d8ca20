import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The interactive API reference at <basePath>/docs: Swagger UI ("try it", a bearer token field)
 * reading the live OpenAPI document, with every asset served from node_modules by this server, so
 * it works on machines without internet access.
 */

interface Asset {
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
  hash: string;
}

export interface ApiReferenceOptions {
  basePath: string;
  title: string;
}

export interface ApiReference {
  /** The page or one of its assets for a GET of `path` (relative to the base path); null for other paths. */
  respond(path: string): Response | null;
}

/** The files the page needs from swagger-ui-dist; nothing else in that folder is served. */
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Asset URLs carry their content's hash, so a URL never changes meaning and browsers may keep it.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The page runs only this server's scripts and talks only to this server (the browser enforces
 * it too). Swagger UI sets inline styles; its icons are data: URIs.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function asset(contentType: string, content: string | Buffer): Asset {
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  return {
    contentType,
    body: new Uint8Array(body),
    hash: createHash('sha256').update(body).digest('hex').slice(0, 16),
  };
}

function swaggerUiFolder(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * Starts Swagger UI on the live document. The validator badge is off: it would send the document
 * to validator.swagger.io. "Try it out" starts enabled, so each operation shows Execute at once.
 */
function initializerScript(openApiUrl: string): string {
  const config = {
    url: openApiUrl,
    dom_id: '#reference',
    validatorUrl: null,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    deepLinking: true,
    // A pasted token lives as long as the tab, never in the browser's storage.
    persistAuthorization: false,
  };
  return `window.ui = SwaggerUIBundle(${JSON.stringify(config)});\n`;
}

function loadAssets(basePath: string): Map<string, Asset> {
  const folder = swaggerUiFolder();
  const assets = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(SWAGGER_UI_FILES))
    assets.set(name, asset(contentType, readFileSync(path.join(folder, name))));
  assets.set('reference.js', asset('text/javascript; charset=utf-8', initializerScript(`${basePath}/openapi.json`)));
  return assets;
}

function renderPage(options: ApiReferenceOptions, assets: Map<string, Asset>): string {
  const url = (name: string) => escapeHtml(`${options.basePath}/docs/assets/${assets.get(name)!.hash}/${name}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} reference</title>
<link rel="icon" type="image/png" href="${url('favicon-32x32.png')}">
<link rel="stylesheet" href="${url('swagger-ui.css')}">
</head>
<body>
<div id="reference"></div>
<script src="${url('swagger-ui-bundle.js')}"></script>
<script src="${url('reference.js')}"></script>
</body>
</html>
`;
}

export function createApiReference(options: ApiReferenceOptions): ApiReference {
  // Read on the first docs request: a server nobody browses never loads the 1.7 MB bundle.
  let loaded: { assets: Map<string, Asset>; page: string } | null = null;
  const load = () => {
    if (!loaded) {
      const assets = loadAssets(options.basePath);
      loaded = { assets, page: renderPage(options, assets) };
    }
    return loaded;
  };
  return {
    respond(relativePath) {
      if (relativePath === '/docs' || relativePath === '/docs/') {
        return new Response(load().page, {
          headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_POLICY },
        });
      }
      const match = /^\/docs\/assets\/([0-9a-f]{16})\/([\w.-]+)$/.exec(relativePath);
      if (!match) return null;
      const found = load().assets.get(match[2]!);
      // An old hash (a page from before an upgrade) is not served: its URL must keep meaning the old file.
      if (!found || found.hash !== match[1]) return null;
      return new Response(found.body, { headers: { 'content-type': found.contentType, 'cache-control': IMMUTABLE } });
    },
  };
}
