import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords: the one policy every new password meets (a created user's initial password, a changed
 * password, an accepted invitation's, the production admin's ADMIN_PASSWORD), and hashing with
 * scrypt (N=2^15, r=8, p=1), stored as `scrypt$N$r$p$salt$hash`.
 */

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;
const MIN_DISTINCT_CHARACTERS = 5;

/**
 * Words that make a password easy to guess however long it is: the cores of the commonest leaked
 * passwords and of default ones. Kept short on purpose, so the rule stays easy to state.
 */
const WEAK_WORDS = ['password', '123456', 'qwerty', 'admin', 'letmein', 'changeme', 'welcome'];

/**
 * What is wrong with a new password, as words that follow its name in an error ("must be at least
 * 12 characters"), or null when it is acceptable: 12 to 1024 characters, at least 5 different ones,
 * no known weak word. Length over composition: a long passphrase is hard to guess, while rules about
 * digits and symbols mostly yield predictable variations ("Password1!"), so there are none; what is
 * refused is what guessers try first. Characters are counted as hashed: code points after NFKC.
 */
export function passwordProblem(password: string): string | null {
  const normalized = password.normalize('NFKC');
  const characters = [...normalized];
  if (characters.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (characters.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (new Set(characters).size < MIN_DISTINCT_CHARACTERS)
    return `must have at least ${MIN_DISTINCT_CHARACTERS} different characters`;
  const lowered = normalized.toLowerCase();
  const weak = WEAK_WORDS.find((word) => lowered.includes(word));
  if (weak) return `must not contain "${weak}", one of the first words guessed`;
  return null;
}

const COST = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

// Verifying against this when the account does not exist keeps the answer time the same,
// so response timing does not reveal which emails have accounts.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? DUMMY_HASH).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}
