/** String similarity for matching what people type against what we know: dealer names, raw source spellings. */

/** Jaro-Winkler similarity of two strings, 0 to 1. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aMatched = new Array<boolean>(a.length).fill(false);
  const bMatched = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i += 1) {
    for (let j = Math.max(0, i - window); j < Math.min(b.length, i + window + 1); j += 1) {
      if (!bMatched[j] && a[i] === b[j]) {
        aMatched[i] = bMatched[j] = true;
        matches += 1;
        break;
      }
    }
  }
  if (!matches) return 0;
  let transpositions = 0;
  for (let i = 0, j = 0; i < a.length; i += 1) {
    if (!aMatched[i]) continue;
    while (!bMatched[j]) j += 1;
    if (a[i] !== b[j]) transpositions += 1;
    j += 1;
  }
  const jaro = (matches / a.length + matches / b.length + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && a[prefix] === b[prefix]) prefix += 1;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/**
 * Word-order-free similarity of two names: each word of the shorter name is paired with its most
 * similar word in the other (Jaro-Winkler, so "chevrolet" ~ "chevorlet"), weighted by length,
 * then penalised for words the longer name has that the shorter lacks.
 */
export function nameSimilarity(a: string[], b: string[]): number {
  if (!a.length || !b.length) return 0;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  let weighted = 0;
  let weight = 0;
  for (const word of short) {
    const best = Math.max(...long.map((other) => jaroWinkler(word, other)));
    weighted += (best >= 0.85 ? best : best * 0.5) * word.length;
    weight += word.length;
  }
  const coverage = weighted / weight;
  const lengthPenalty = short.length / long.length;
  return coverage * (0.75 + 0.25 * lengthPenalty);
}
