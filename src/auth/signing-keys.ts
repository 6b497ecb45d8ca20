import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importPKCS8,
  type JWK,
  type CryptoKey,
} from 'jose';

/** The RS256 key pair that signs access tokens, and its public half as a JWKS. */
export interface SigningKeys {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  kid: string;
  jwks: { keys: JWK[] };
}

async function fromPrivateKey(pem: string): Promise<SigningKeys> {
  const privateKey = await importPKCS8(pem, 'RS256', { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const publicJwk: JWK = { kty: privateJwk.kty, n: privateJwk.n, e: privateJwk.e };
  const kid = await calculateJwkThumbprint(publicJwk);
  const { importJWK } = await import('jose');
  const publicKey = (await importJWK(publicJwk, 'RS256')) as CryptoKey;
  return { privateKey, publicKey, kid, jwks: { keys: [{ ...publicJwk, kid, alg: 'RS256', use: 'sig' }] } };
}

/**
 * Uses the configured PEM key, else the one kept in `dataDir/keys`, else makes one (and keeps it
 * there, readable only by the owner, so tokens survive a restart).
 */
export async function loadSigningKeys(configuredPem: string | null, dataDir: string | null): Promise<SigningKeys> {
  if (configuredPem) return fromPrivateKey(configuredPem);
  const file = dataDir ? path.join(dataDir, 'keys', 'jwt-signing-key.pem') : null;
  if (file && existsSync(file)) return fromPrivateKey(readFileSync(file, 'utf8'));
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const pem = await exportPKCS8(privateKey);
  if (file) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, pem, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return fromPrivateKey(pem);
}
