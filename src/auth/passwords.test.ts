import { describe, expect, it } from 'vitest';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem, verifyPassword } from './passwords';

describe('passwords: one policy for every new password, and hashing', () => {
  it('accepts long passwords and passphrases without composition rules', () => {
    for (const password of [
      'correct horse battery staple',
      'Fjord-Lantern-7-Quiver',
      'mauve otter sings',
      'ñandú-pingüino-ß',
    ]) {
      expect(passwordProblem(password), password).toBeNull();
    }
  });

  it(`refuses fewer than ${MIN_PASSWORD_LENGTH} or more than ${MAX_PASSWORD_LENGTH} characters, counting code points`, () => {
    expect(passwordProblem('short-pass1')).toBe(`must be at least ${MIN_PASSWORD_LENGTH} characters`);
    expect(passwordProblem('crisp-lemon7')).toBeNull();
    // Eleven characters of which six take two UTF-16 units each: still eleven.
    expect(passwordProblem('🍋🍊🍉🍇🍓🍒-sour')).toBe(`must be at least ${MIN_PASSWORD_LENGTH} characters`);
    const longest = 'the quick brown fox jumps '.repeat(40).slice(0, MAX_PASSWORD_LENGTH);
    expect(passwordProblem(longest)).toBeNull();
    expect(passwordProblem(`${longest}!`)).toBe(`must be at most ${MAX_PASSWORD_LENGTH} characters`);
  });

  it('refuses a password of very few different characters', () => {
    expect(passwordProblem('aaaaaaaaaaaaaaaa')).toBe('must have at least 5 different characters');
    expect(passwordProblem('abcdabcdabcdabcd')).toBe('must have at least 5 different characters');
    expect(passwordProblem('abcdeabcdeabcde')).toBeNull();
  });

  it('refuses a password containing a known weak word, whatever its case or width', () => {
    expect(passwordProblem('my-PassWord-is-long')).toBe('must not contain "password", one of the first words guessed');
    expect(passwordProblem('demo-admin-password')).toMatch(/^must not contain "(admin|password)"/);
    expect(passwordProblem('zebra-qwerty-kite')).toBe('must not contain "qwerty", one of the first words guessed');
    expect(passwordProblem('river 1234567 stone')).toBe('must not contain "123456", one of the first words guessed');
    // Full-width letters are hashed as their ASCII forms (NFKC), so they are checked as those.
    expect(passwordProblem('ｗｅｌｃｏｍｅ to the lot')).toBe(
      'must not contain "welcome", one of the first words guessed',
    );
    expect(passwordProblem('letmein-please-now')).toMatch(/"letmein"/);
    expect(passwordProblem('changeme-on-monday')).toMatch(/"changeme"/);
  });

  it('hashes and verifies a password that meets it', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
  });
});
