import { randomUUID } from 'node:crypto';
import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger';
import type { RequestLogWriter } from './request-log';
import { errorResponse } from './errors';
import { rateLimitHeaders } from '../auth/rate-limit';
import type { Authenticator } from '../auth/authenticate';
import { Exchange, type ExchangeServerContext } from './exchange';
import { ALLOWED_METHODS, pathProblem, queryProblem } from './edge';
import { BytesResponse } from './bytes-response';

/**
 * The HTTP front: request ids, edge checks, body limits, security headers, time limits, the JWKS
 * and the request log; everything else goes to Yoga.
 */

export interface HttpServerOptions {
  /** Answers everything past the edge: GraphQL, REST and their pages. */
  yoga: { fetch(request: Request, serverContext: ExchangeServerContext): Response | Promise<Response> };
  trustProxyHops: number;
  jwks: object;
  maxBodyBytes: number;
  requestLog: RequestLogWriter;
  logger: Logger;
  authenticator: Authenticator;
  /** Time a client has to send its headers, and its whole request (slow clients are cut off). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}
const METHODS = new Set<string>(ALLOWED_METHODS);

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
  response.headers.forEach((value, name) => {
    // Some Response implementations keep the case a header was set with.
    const key = name.toLowerCase();
    if (key === 'set-cookie') headers[key] = [...((headers[key] as string[]) ?? []), value];
    else headers[key] = value;
  });
  headers['x-request-id'] = requestId;
  Object.assign(headers, securityHeaders(headers));
  if (response.body && String(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    // A subscription: each event goes out as it comes, until either side ends the stream.
    res.writeHead(response.status, headers);
    res.flushHeaders();
    const reader = response.body.getReader();
    res.on('close', () => void reader.cancel().catch(() => {}));
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done || res.destroyed) break;
      res.write(chunk.value);
    }
    res.end();
    return;
  }
  const body =
    response instanceof BytesResponse
      ? response.content
      : response.body
        ? Buffer.from(await response.arrayBuffer())
        : null;
  if (body) headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}

/**
 * Headers every answer carries: no content sniffing; nothing cached unless the answer says it may be
 * (tokens and keys are in API answers); HTML pages may not be framed by other sites.
 */
function securityHeaders(headers: Record<string, string | string[]>): Record<string, string> {
  const extra: Record<string, string> = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
  if (!headers['cache-control']) extra['cache-control'] = 'no-store';
  if (String(headers['content-type'] ?? '').startsWith('text/html')) {
    const policy = headers['content-security-policy'];
    extra['content-security-policy'] = policy ? `${policy}; frame-ancestors 'none'` : "frame-ancestors 'none'";
    extra['x-frame-options'] = 'DENY';
  }
  return extra;
}

/** How long an idle keep-alive connection stays open: past what clients and load balancers keep. */
const KEEP_ALIVE_MS = 65_000;

/** A request the HTTP parser could not read (headers too large, garbage, too slow): the error shape, then close. */
function refuseUnreadable(error: NodeJS.ErrnoException, socket: Duplex, maxHeaderSize: number): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'HEADERS_TOO_LARGE', `the request headers are larger than ${maxHeaderSize} bytes`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'the request was not received in time']
        : [400, 'BAD_REQUEST', 'the request is not valid HTTP/1.1'];
  endRaw(socket, status, code, message);
}

/** An error answer written straight to the socket, for requests that never reach the handler; then close. */
function endRaw(socket: Duplex, status: number, code: string, message: string, headers = ''): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The origin the client addressed, from a well-formed Host header, for absolute URLs in answers. */
function origin(req: IncomingMessage): string {
  const host = req.headers.host;
  return host && /^[\w.-]+(?::\d{1,5})?$|^\[[\da-f:.]+\](?::\d{1,5})?$/i.test(host)
    ? `http://${host}`
    : 'http://localhost';
}

/** The caller's address: the socket's, or with N trusted proxies the Nth X-Forwarded-For entry from the right. */
function clientIp(req: IncomingMessage, trustProxyHops: number): string | null {
  const socket = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? null;
  const forwarded = req.headers['x-forwarded-for'];
  if (!trustProxyHops || typeof forwarded !== 'string') return socket;
  const hops = forwarded
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
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
  // Slow clients are checked every second (Node's default is every 30 s, past any sensible header limit).
  const server = http.createServer(
    { connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs) },
    async (req, res) => {
      inFlight += 1;
      const started = performance.now();
      const incomingId = req.headers['x-request-id'];
      const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
      const method = req.method ?? 'GET';
      const rawTarget = req.url ?? '/';
      const targetProblem = pathProblem(rawTarget);
      // A refused target is logged as sent (bounded), since no URL parser may normalise it.
      const url = new URL(targetProblem ? '/' : rawTarget, origin(req));
      const loggedPath = targetProblem ? rawTarget.split('?', 1)[0]!.slice(0, 500) : url.pathname;
      const authorization = req.headers.authorization ?? null;
      const exchange = new Exchange(
        requestId,
        clientIp(req, options.trustProxyHops),
        authorization,
        options.authenticator,
      );
      // `Cache-Control: no-cache` asks for an answer computed now, unless the request is conditional:
      // fetch adds that header to every request carrying If-None-Match, and a kept answer is current.
      exchange.freshAnswer =
        req.headers['if-none-match'] === undefined &&
        /(^|,)\s*no-(cache|store)\s*(,|$|=)/i.test(String(req.headers['cache-control'] ?? ''));
      let status = 500;
      try {
        let response: Response;
        const badQuery = targetProblem ? null : queryProblem(url.searchParams);
        if (!METHODS.has(method)) {
          response = errorResponse(
            405,
            'METHOD_NOT_ALLOWED',
            `${method.slice(0, 20)} is not supported; use ${ALLOWED_METHODS.join(', ')}`,
            undefined,
            { allow: ALLOWED_METHODS.join(', ') },
          );
        } else if (!BODY_METHODS.has(method) && hasBody(req)) {
          // Ignoring it would answer as if the filters in it applied.
          response = errorResponse(
            400,
            'INVALID_BODY',
            `${method} takes no body; send its parameters in the query string`,
          );
        } else if (targetProblem || badQuery) {
          const problem = (targetProblem ?? badQuery)!;
          response = errorResponse(400, 'INVALID_ARGUMENT', `${problem.field}: ${problem.message}`, {
            field: problem.field,
          });
        } else if (url.pathname === '/.well-known/jwks.json' && method === 'GET') {
          response = new Response(jwks, {
            headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
          });
        } else {
          let rawBody: Buffer | null = null;
          try {
            rawBody = BODY_METHODS.has(method) ? await readBody(req, options.maxBodyBytes) : null;
          } catch (error) {
            if (!(error instanceof BodyTooLarge)) throw error;
            response = errorResponse(
              413,
              'PAYLOAD_TOO_LARGE',
              `the request body is larger than ${options.maxBodyBytes} bytes`,
            );
            status = response.status;
            await send(res, response, requestId);
            return;
          }
          const headers = new Headers();
          for (const [name, value] of Object.entries(req.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const request = new Request(url, {
            method,
            headers,
            body: rawBody?.length ? new Uint8Array(rawBody) : undefined,
          });
          response = await options.yoga.fetch(request, { exchange, rawBody });
          if (exchange.rateLimit)
            for (const [name, value] of Object.entries(rateLimitHeaders(exchange.rateLimit)))
              response.headers.set(name, value);
          if (exchange.cacheStatus) response.headers.set('cache-status', `ddp; ${exchange.cacheStatus}`);
        }
        status = response.status;
        await send(res, response, requestId);
      } catch (error) {
        options.logger.error('request failed', { requestId, error });
        status = 500;
        if (!res.headersSent)
          await send(
            res,
            errorResponse(500, 'INTERNAL', 'internal error; the request id identifies it in our logs'),
            requestId,
          );
        else res.destroy();
      } finally {
        const caller = exchange.session;
        const credential =
          !caller?.isAuthenticated && authorization
            ? await options.authenticator.identify(authorization).catch(() => null)
            : null;
        options.requestLog.record({
          requestId,
          occurredAt: new Date(),
          method,
          path: loggedPath,
          operation: exchange.operation,
          status,
          durationMs: performance.now() - started,
          ip: exchange.ip,
          userAgent: req.headers['user-agent']?.slice(0, 300) ?? null,
          userId: caller?.userId ?? null,
          apiKeyId: caller?.apiKeyId ?? null,
          dealerGroupIds: [...(caller?.dealerGroupIds ?? [])],
          credential,
        });
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      }
    },
  );
  server.headersTimeout = options.headersTimeoutMs;
  server.requestTimeout = options.requestTimeoutMs;
  // An idle keep-alive connection stays open longer than clients and load balancers keep theirs
  // (Node's fetch 4 s, browsers about 60 s, load balancers 60 s by default): with Node's 5 s a client
  // could send a request on a connection just as the server closed it, and see a reset, not an answer.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    refuseUnreadable(error, socket, http.maxHeaderSize),
  );
  // CONNECT never reaches the request handler; without a listener node would just drop the socket.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) =>
    endRaw(
      socket,
      405,
      'METHOD_NOT_ALLOWED',
      `CONNECT is not supported; use ${ALLOWED_METHODS.join(', ')}`,
      `Allow: ${ALLOWED_METHODS.join(', ')}\r\n`,
    ),
  );
  return {
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0)
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
      await closed;
    },
  };
}
