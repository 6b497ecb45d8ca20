import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import type { RequestMeta } from '../context';
import type { Logger } from '../logger';
import type { RequestLogWriter } from './request-log';
import { errorResponse } from './errors';
import { rateLimitHeaders } from '../auth/rate-limit';

/** The HTTP front: request ids, body limits, the JWKS, the request log; everything else goes to Yoga. */

export interface HttpServerOptions {
  yoga: YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
  trustProxyHops: number;
  jwks: object;
  maxBodyBytes: number;
  requestLog: RequestLogWriter;
  logger: Logger;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function send(res: ServerResponse, response: Response, requestId: string): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === 'set-cookie') headers[key] = [...((headers[key] as string[]) ?? []), value];
    else headers[key] = value;
  });
  headers['x-request-id'] = requestId;
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  if (body) headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}

/** The caller's address: the socket's, or with N trusted proxies the Nth X-Forwarded-For entry from the right. */
function clientIp(req: IncomingMessage, trustProxyHops: number): string | null {
  const socket = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? null;
  const forwarded = req.headers['x-forwarded-for'];
  if (!trustProxyHops || typeof forwarded !== 'string') return socket;
  const hops = forwarded.split(',').map((entry) => entry.trim()).filter(Boolean);
  return hops[hops.length - trustProxyHops] ?? hops[0] ?? socket;
}

/** The node server plus a way to wait for handlers still running (a client may hang up mid-request). */
export interface HttpServer {
  server: http.Server;
  /** Stops accepting connections and resolves once every request handler has finished. */
  close(): Promise<void>;
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const jwks = JSON.stringify(options.jwks);
  let inFlight = 0;
  let drained: (() => void) | null = null;
  const server = http.createServer(async (req, res) => {
    inFlight += 1;
    const started = performance.now();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const meta: RequestMeta = { requestId, ip: clientIp(req, options.trustProxyHops), userId: null, apiKeyId: null, dealerGroupIds: [], operation: null, rateLimit: null };
    let status = 500;
    try {
      let response: Response;
      if (url.pathname === '/.well-known/jwks.json' && method === 'GET') {
        response = new Response(jwks, { headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' } });
      } else {
        let rawBody: Buffer | null = null;
        try {
          rawBody = BODY_METHODS.has(method) ? await readBody(req, options.maxBodyBytes) : null;
        } catch (error) {
          if (!(error instanceof BodyTooLarge)) throw error;
          response = errorResponse(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${options.maxBodyBytes} bytes`);
          status = response.status;
          await send(res, response, requestId);
          return;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const request = new Request(url, { method, headers, body: rawBody?.length ? new Uint8Array(rawBody) : undefined });
        response = await options.yoga.fetch(request, { meta, rawBody });
        if (meta.rateLimit) for (const [name, value] of Object.entries(rateLimitHeaders(meta.rateLimit))) response.headers.set(name, value);
      }
      status = response.status;
      await send(res, response, requestId);
    } catch (error) {
      options.logger.error('request failed', { requestId, error });
      status = 500;
      if (!res.headersSent) await send(res, errorResponse(500, 'INTERNAL', 'internal error; the request id identifies it in our logs'), requestId);
      else res.destroy();
    } finally {
      options.requestLog.record({
        requestId,
        occurredAt: new Date(),
        method,
        path: url.pathname,
        operation: meta.operation,
        status,
        durationMs: performance.now() - started,
        ip: meta.ip,
        userAgent: req.headers['user-agent']?.slice(0, 300) ?? null,
        userId: meta.userId,
        apiKeyId: meta.apiKeyId,
        dealerGroupIds: [...meta.dealerGroupIds],
      });
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    }
  });
  return {
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) await new Promise<void>((resolve) => { drained = resolve; });
      await closed;
    },
  };
}
