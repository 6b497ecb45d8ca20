import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Encryption at rest for secrets we must be able to read back (integration credentials, the AI
 * provider's key, stored answers that show a secret once): AES-256-GCM with a random 96-bit IV,
 * stored as `v1.<key id>.<iv>.<tag>.<ciphertext>`. The key ring's first key encrypts; every key
 * decrypts, so a new key can be put first and old values re-encrypted (see `needsRotation`). Also
 * keyed fingerprints, for values we must recognise but never read back.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  /** Each ring key's fingerprint key, derived once (HKDF), so the encryption key itself never signs. */
  private readonly fingerprintKeys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(ring: Array<{ id: string; key: Buffer }>) {
    if (!ring.length) throw new Error('SecretBox needs at least one key');
    for (const { id, key } of ring) if (key.length !== 32) throw new Error(`key ${id} must be 32 bytes`);
    this.keys = new Map(ring.map(({ id, key }) => [id, key]));
    this.currentKeyId = ring[0]!.id;
  }

  /** The configured keys, else the one kept in `dataDir/keys` (made on first use, owner-readable only). */
  static load(ring: Array<{ id: string; key: Buffer }>, dataDir: string | null): SecretBox {
    if (ring.length) return new SecretBox(ring);
    const file = dataDir ? path.join(dataDir, 'keys', 'credentials.key') : null;
    if (file && existsSync(file))
      return new SecretBox([{ id: 'local', key: Buffer.from(readFileSync(file, 'utf8').trim(), 'base64') }]);
    const key = randomBytes(32);
    if (file) {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, key.toString('base64'), { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    return new SecretBox([{ id: 'local', key }]);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    // The context (say, the integration id) is authenticated: a sealed value copied onto another row does not open.
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      'v1',
      this.currentKeyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  open(sealed: string, context: string): string {
    const [version, keyId, iv, tag, body] = sealed.split('.');
    const key = keyId ? this.keys.get(keyId) : undefined;
    if (version !== 'v1' || !key || !iv || !tag || body === undefined)
      throw new Error(`cannot open a secret sealed with ${keyId ? `key "${keyId}"` : 'an unknown format'}`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * A keyed digest of a value to recognise later without keeping it (the body of an idempotent
   * request, which may hold a password): HMAC-SHA256 under the current key's fingerprint key, as
   * `v1.<key id>.<digest>`. Without the key ring it tells nothing, even of a guessable value.
   */
  fingerprint(value: string, context: string): string {
    return ['v1', this.currentKeyId, this.mac(this.currentKeyId, value, context)!.toString('base64url')].join('.');
  }

  /** Whether `value` (in `context`) has this fingerprint, made with any key still in the ring. */
  hasFingerprint(fingerprint: string, value: string, context: string): boolean {
    const [version, keyId, digest] = fingerprint.split('.');
    const expected = version === 'v1' && keyId ? this.mac(keyId, value, context) : null;
    const given = Buffer.from(digest ?? '', 'base64url');
    return expected !== null && given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(keyId: string, value: string, context: string): Buffer | null {
    const key = this.keys.get(keyId);
    if (!key) return null;
    let fingerprintKey = this.fingerprintKeys.get(keyId);
    if (!fingerprintKey) {
      fingerprintKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'ddp fingerprint v1', 32));
      this.fingerprintKeys.set(keyId, fingerprintKey);
    }
    // The context is length-prefixed, so no context and value pair reads as another.
    return createHmac('sha256', fingerprintKey).update(`${context.length}:${context}`).update(value).digest();
  }

  /** Whether the key that sealed or fingerprinted a value is in this ring (instances must share CREDENTIALS_KEYS). */
  holdsKeyOf(value: string): boolean {
    return this.keys.has(value.split('.')[1] ?? '');
  }

  needsRotation(sealed: string): boolean {
    return sealed.split('.')[1] !== this.currentKeyId;
  }

  /** The value sealed again with the current key, or null when it already is. */
  reseal(sealed: string, context: string): string | null {
    return this.needsRotation(sealed) ? this.seal(this.open(sealed, context), context) : null;
  }

  /**
   * Seals again, with the current key, each value sealed with an older one, writing it back; answers
   * how many. A value whose key this ring does not hold is left as it is (an instance that holds
   * the key reseals it): the server still starts, and the value fails only where it is used.
   */
  async resealAll(
    values: Array<{ context: string; sealed: string }>,
    write: (context: string, sealed: string) => Promise<unknown>,
  ): Promise<number> {
    let resealed = 0;
    for (const { context, sealed } of values) {
      if (!this.holdsKeyOf(sealed)) continue;
      const fresh = this.reseal(sealed, context);
      if (!fresh) continue;
      await write(context, fresh);
      resealed += 1;
    }
    return resealed;
  }
}
