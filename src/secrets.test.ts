import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secrets';

describe('SecretBox (AES-256-GCM with a rotatable key ring)', () => {
  const oldKey = { id: 'k1', key: randomBytes(32) };
  const newKey = { id: 'k2', key: randomBytes(32) };

  it('seals to ciphertext that does not contain the secret and opens only with its context', () => {
    const box = new SecretBox([oldKey]);
    const sealed = box.seal('{"api_key":"sk_live_123"}', 'integration-a');
    expect(sealed).toMatch(/^v1\.k1\./);
    expect(sealed).not.toContain('sk_live_123');
    expect(box.open(sealed, 'integration-a')).toBe('{"api_key":"sk_live_123"}');
    expect(() => box.open(sealed, 'integration-b')).toThrow();
    // Flip one bit of the ciphertext itself (editing base64 text may only touch padding bits).
    const parts = sealed.split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0]! ^= 1;
    const tampered = [...parts.slice(0, 4), body.toString('base64url')].join('.');
    expect(() => box.open(tampered, 'integration-a')).toThrow();
  });

  it('rotates: the new key seals, old values still open and are flagged for re-sealing', () => {
    const before = new SecretBox([oldKey]).seal('secret', 'x');
    const rotated = new SecretBox([newKey, oldKey]);
    expect(rotated.open(before, 'x')).toBe('secret');
    expect(rotated.needsRotation(before)).toBe(true);
    const after = rotated.seal('secret', 'x');
    expect(after).toMatch(/^v1\.k2\./);
    expect(rotated.needsRotation(after)).toBe(false);
    expect(() => new SecretBox([newKey]).open(before, 'x')).toThrow(/key "k1"/);
    const resealed = rotated.reseal(before, 'x')!;
    expect(resealed).toMatch(/^v1\.k2\./);
    expect(new SecretBox([newKey]).open(resealed, 'x')).toBe('secret');
    expect(rotated.reseal(resealed, 'x')).toBeNull();
  });

  it('re-seals only the values sealed with an older key, writing each back once', async () => {
    const rotated = new SecretBox([newKey, oldKey]);
    const stranger = { id: 'k9', key: Buffer.alloc(32, 9) };
    const values = [
      { context: 'a', sealed: new SecretBox([oldKey]).seal('first', 'a') },
      { context: 'b', sealed: rotated.seal('second', 'b') },
      // Sealed with a key this ring does not hold: left for an instance that does, not a failed start.
      { context: 'c', sealed: new SecretBox([stranger]).seal('third', 'c') },
    ];
    const written = new Map<string, string>();
    expect(await rotated.resealAll(values, async (context, sealed) => written.set(context, sealed))).toBe(1);
    expect([...written.keys()]).toEqual(['a']);
    expect(new SecretBox([newKey]).open(written.get('a')!, 'a')).toBe('first');
  });

  it('fingerprints a value so it is recognised, under any key still in the ring, without being readable', () => {
    const box = new SecretBox([oldKey]);
    const fingerprint = box.fingerprint('{"password":"correct horse battery staple"}', 'caller-a');
    expect(fingerprint).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{43}$/);
    expect(fingerprint).not.toContain('correct horse');
    expect(box.fingerprint('{"password":"correct horse battery staple"}', 'caller-a')).toBe(fingerprint);
    expect(box.hasFingerprint(fingerprint, '{"password":"correct horse battery staple"}', 'caller-a')).toBe(true);
    expect(box.hasFingerprint(fingerprint, '{"password":"correct horse battery stable"}', 'caller-a')).toBe(false);
    expect(box.hasFingerprint(fingerprint, '{"password":"correct horse battery staple"}', 'caller-b')).toBe(false);
    // Another ring cannot make or check it: a digest of a guessable value tells nothing without the key.
    expect(new SecretBox([newKey]).fingerprint('{"password":"correct horse battery staple"}', 'caller-a')).not.toBe(
      fingerprint.replace('k1', 'k2'),
    );
    const rotated = new SecretBox([newKey, oldKey]);
    expect(rotated.hasFingerprint(fingerprint, '{"password":"correct horse battery staple"}', 'caller-a')).toBe(true);
    expect(
      new SecretBox([newKey]).hasFingerprint(fingerprint, '{"password":"correct horse battery staple"}', 'caller-a'),
    ).toBe(false);
    expect(rotated.holdsKeyOf(fingerprint)).toBe(true);
    expect(new SecretBox([newKey]).holdsKeyOf(fingerprint)).toBe(false);
    expect(new SecretBox([newKey]).holdsKeyOf(rotated.seal('x', 'y'))).toBe(true);
    for (const garbled of ['', 'v1', 'v1.k1', 'v2.k1.abc', `${fingerprint}x`, fingerprint.slice(0, -2)])
      expect(box.hasFingerprint(garbled, '{"password":"correct horse battery staple"}', 'caller-a'), garbled).toBe(
        false,
      );
  });
});
