/** VIN rules (ISO 3779 / 49 CFR 565): 17 characters, no I, O or Q, and a check digit in position 9. */

const TRANSLITERATION: Record<string, number> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
};
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
export const VIN_PATTERN = /^[A-HJ-NPR-Z0-9]{17}$/;

function valueOf(character: string): number {
  return /\d/.test(character) ? Number(character) : (TRANSLITERATION[character] ?? Number.NaN);
}

/** The check digit ("0"-"9" or "X") a VIN's other 16 characters call for. */
export function vinCheckDigit(vin: string): string {
  let sum = 0;
  for (let index = 0; index < 17; index += 1) sum += valueOf(vin[index] ?? '') * (WEIGHTS[index] ?? 0);
  const remainder = sum % 11;
  return remainder === 10 ? 'X' : String(remainder);
}

export function normalizeVin(vin: string): string {
  return vin.trim().toUpperCase();
}

/** Why a VIN is invalid, or null when it is well formed and its check digit matches. */
export function vinProblem(raw: string): string | null {
  const vin = normalizeVin(raw);
  if (vin.length !== 17) return `must be 17 characters, got ${vin.length}`;
  if (!VIN_PATTERN.test(vin)) return 'may contain only digits and letters other than I, O and Q';
  const expected = vinCheckDigit(vin);
  if (vin[8] !== expected) return `check digit (9th character) should be ${expected}, got ${vin[8]}`;
  return null;
}

/** Sets position 9 of a 17-character VIN to its correct check digit. */
export function withCheckDigit(vin: string): string {
  return vin.slice(0, 8) + vinCheckDigit(vin) + vin.slice(9);
}
