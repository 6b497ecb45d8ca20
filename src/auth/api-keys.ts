import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

/** API key material: generation, the stored digest, masking and IP allowlists. */

export const API_KEY_PREFIX = 'svc_live_';

/** A new key: the prefix and 43 characters (32 bytes) from the CSPRNG. */
export function generateApiKey(): { key: string; hash: string; lastFour: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), lastFour: key.slice(-4) };
}

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

export const maskApiKey = (lastFour: string) => `${API_KEY_PREFIX}…${lastFour}`;

export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Why a CIDR block (or a single address) is not valid, or null. */
export function cidrProblem(value: string): string | null {
  const [address, prefix, extra] = value.trim().split('/');
  const family = isIP(address ?? '');
  if (!family || extra !== undefined) return `"${value}" is not an IP address or CIDR block`;
  if (prefix === undefined) return null;
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return `"${value}" has an invalid prefix length`;
  return null;
}

/** Whether `ip` falls in any of the CIDR blocks. */
export function ipAllowed(ip: string | null, blocks: readonly string[]): boolean {
  if (!blocks.length) return true;
  if (!ip) return false;
  const list = new BlockList();
  for (const block of blocks) {
    const [address = '', prefix] = block.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}
