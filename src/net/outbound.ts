import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound HTTP to addresses a tenant chose (feed endpoints, the assistant's provider). Unless the
 * deployment allows private networks, it refuses loopback, private, link-local (cloud metadata),
 * carrier-grade NAT, multicast and reserved addresses, checked on the address actually connected
 * to (a name that resolves to a public address and then to 127.0.0.1 is still refused).
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is on a private, loopback, link-local or reserved network. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

export class OutboundError extends Error {}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** Answers larger than this are cut off with an error (default 50 MB). */
  maxBytes?: number;
  allowPrivateNetworks: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused)
      return callback(
        Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private or reserved address`), {
          code: 'EPRIVATE',
        }),
        '',
      );
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** One HTTP(S) request; never follows redirects. Rejects with OutboundError naming what went wrong. */
export function outboundRequest(target: string | URL, request: OutboundRequest): Promise<OutboundResponse> {
  const url = new URL(target);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return Promise.reject(new OutboundError(`${url.protocol} is not supported`));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!request.allowPrivateNetworks && isIP(host) && isPrivateAddress(host)) {
    return Promise.reject(new OutboundError(`${host} is a private or reserved address`));
  }
  const maxBytes = request.maxBytes ?? 50_000_000;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      url,
      {
        method: request.method ?? 'GET',
        headers: {
          ...(request.body !== undefined ? { 'content-length': Buffer.byteLength(request.body) } : {}),
          ...request.headers,
        },
        ...(request.allowPrivateNetworks ? {} : { lookup: guardedLookup as never }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            clearTimeout(deadline);
            response.destroy();
            reject(new OutboundError(`the answer is larger than ${Math.round(maxBytes / 1e6)} MB`));
          } else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', (error) => reject(new OutboundError(error.message)));
      },
    );
    // One deadline for the whole exchange (a server dripping bytes cannot hold a run open).
    const timeoutMs = request.timeoutMs ?? 30_000;
    const deadline = setTimeout(
      () => outgoing.destroy(new OutboundError(`no complete answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    outgoing.on('error', (error) => {
      clearTimeout(deadline);
      reject(error instanceof OutboundError ? error : new OutboundError(error.message));
    });
    outgoing.end(request.body);
  });
}
