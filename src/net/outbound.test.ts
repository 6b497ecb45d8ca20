import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, outboundRequest } from './outbound';

describe('outbound requests to tenant-chosen addresses', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/slow') {
        response.write('[');
        return; // never ends
      }
      if (request.url === '/big') return response.end('x'.repeat(2_000));
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, body: request.method === 'POST' ? 'posted' : null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  it('classifies loopback, private, link-local, mapped and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '151.101.1.69', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('refuses private addresses, given as a literal or reached through a name, unless private networks are allowed', async () => {
    await expect(outboundRequest(`http://127.0.0.1:${port}/`, { allowPrivateNetworks: false })).rejects.toThrow(
      '127.0.0.1 is a private or reserved address',
    );
    await expect(
      outboundRequest(`http://[::ffff:127.0.0.1]:${port}/`, { allowPrivateNetworks: false }),
    ).rejects.toThrow(/private or reserved/);
    await expect(outboundRequest(`http://localhost:${port}/`, { allowPrivateNetworks: false })).rejects.toThrow(
      /localhost resolves to .*private or reserved/,
    );
    const answer = await outboundRequest(`http://localhost:${port}/`, {
      allowPrivateNetworks: true,
      method: 'POST',
      body: '{}',
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ method: 'POST', body: 'posted' });
  });

  it('gives up on a server that never finishes its answer, and on answers over the size limit', async () => {
    await expect(
      outboundRequest(`http://127.0.0.1:${port}/slow`, { allowPrivateNetworks: true, timeoutMs: 300 }),
    ).rejects.toThrow('no complete answer within 0.3 s');
    await expect(
      outboundRequest(`http://127.0.0.1:${port}/big`, { allowPrivateNetworks: true, maxBytes: 1_000 }),
    ).rejects.toThrow(/larger than/);
  });
});
