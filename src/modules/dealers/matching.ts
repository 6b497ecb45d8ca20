import { nameSimilarity } from '../../similarity';

/** Ranks dealers against a messy name, address, phone or website, explaining every score. */

export interface MatchInput {
  name?: string | null;
  street?: string | null;
  city?: string | null;
  state?: string | null;
  postal_code?: string | null;
  phone?: string | null;
  website?: string | null;
}

export interface MatchableDealer {
  id: string;
  name: string;
  street: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  phone: string | null;
  website: string | null;
  aliases: string[];
}

export interface MatchCandidate<D extends MatchableDealer = MatchableDealer> {
  dealer: D;
  score: number;
  reasons: string[];
}

/** Where an AI provider can re-order the top candidates; the default keeps our order. */
export interface CandidateReranker {
  rerank<D extends MatchableDealer>(input: MatchInput, candidates: MatchCandidate<D>[]): Promise<MatchCandidate<D>[]>;
}

export const keepOrder: CandidateReranker = { rerank: async (_input, candidates) => candidates };

const LEGAL_SUFFIXES = new Set([
  'llc',
  'inc',
  'incorporated',
  'co',
  'corp',
  'corporation',
  'ltd',
  'lp',
  'llp',
  'pllc',
  'dba',
  'the',
  'of',
  'and',
  'company',
]);
const ABBREVIATIONS: Record<string, string> = {
  chevy: 'chevrolet',
  chev: 'chevrolet',
  mtrs: 'motors',
  mtr: 'motor',
  mot: 'motors',
  vw: 'volkswagen',
  merc: 'mercedes',
  benz: 'mercedes',
  mb: 'mercedes',
  cdjr: 'chrysler dodge jeep ram',
  hi: 'high',
  n: 'north',
  s: 'south',
  e: 'east',
  w: 'west',
  ctr: 'center',
  cntr: 'center',
  grp: 'group',
  auto: 'automotive',
  autos: 'automotive',
  hond: 'honda',
  toyo: 'toyota',
  dwntwn: 'downtown',
  dt: 'downtown',
  mt: 'mount',
  ft: 'fort',
  st: 'saint',
  intl: 'international',
  natl: 'national',
};
const STREET_WORDS: Record<string, string> = {
  street: 'st',
  avenue: 'ave',
  boulevard: 'blvd',
  road: 'rd',
  drive: 'dr',
  highway: 'hwy',
  parkway: 'pkwy',
  lane: 'ln',
  north: 'n',
  south: 's',
  east: 'e',
  west: 'w',
  place: 'pl',
  court: 'ct',
  suite: 'ste',
};

/** Lower case, no punctuation, abbreviations expanded, legal suffixes dropped: the words that identify a dealer. */
export function nameTokens(name: string): string[] {
  return name
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’.]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter(Boolean)
    .flatMap((token) => (ABBREVIATIONS[token] ?? token).split(' '))
    .filter((token) => !LEGAL_SUFFIXES.has(token));
}

export function normalizePhone(phone: string | null | undefined): string | null {
  const digits = (phone ?? '').replace(/\D/g, '');
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
  return national.length === 10 ? national : null;
}

export function websiteDomain(website: string | null | undefined): string | null {
  const text = (website ?? '').trim().toLowerCase();
  if (!text) return null;
  try {
    const host = new URL(/^[a-z]+:\/\//.test(text) ? text : `https://${text}`).hostname;
    return host.replace(/^www\d?\./, '') || null;
  } catch {
    return null;
  }
}

function addressTokens(street: string | null | undefined): string[] {
  return (street ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter(Boolean)
    .map((token) => STREET_WORDS[token] ?? token);
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Scores one dealer; the reasons say which evidence counted and how much. */
export function scoreDealer<D extends MatchableDealer>(input: MatchInput, dealer: D): MatchCandidate<D> {
  const reasons: string[] = [];
  let score = 0;
  if (input.name?.trim()) {
    const query = nameTokens(input.name);
    const names = [
      { label: 'name', text: dealer.name },
      ...dealer.aliases.map((alias) => ({ label: `alias "${alias}"`, text: alias })),
    ];
    const best = names
      .map((entry) => ({ ...entry, similarity: nameSimilarity(query, nameTokens(entry.text)) }))
      .sort((x, y) => y.similarity - x.similarity)[0]!;
    if (best.similarity >= 0.5) {
      const removed = input.name
        .toLowerCase()
        .split(/[^a-z]+/)
        .filter((word) => LEGAL_SUFFIXES.has(word) || ABBREVIATIONS[word]);
      const how = removed.length
        ? ` after normalising ${[...new Set(removed)].map((word) => `"${word}"`).join(', ')}`
        : '';
      reasons.push(
        best.similarity === 1
          ? `${best.label} matches${how}`
          : `${best.label} ~${round(best.similarity).toFixed(2)}${how}`,
      );
      score += 0.6 * best.similarity;
    }
  }
  const phone = normalizePhone(input.phone);
  if (phone && phone === normalizePhone(dealer.phone)) {
    reasons.push('phone matches');
    score += 0.35;
  }
  const domain = websiteDomain(input.website);
  if (domain && domain === websiteDomain(dealer.website)) {
    reasons.push('website matches');
    score += 0.3;
  }
  const street = addressTokens(input.street);
  const dealerStreet = addressTokens(dealer.street);
  if (street.length && dealerStreet.length) {
    const similarity = nameSimilarity(street, dealerStreet);
    if (street[0] === dealerStreet[0] && similarity >= 0.8) {
      reasons.push('street address matches');
      score += 0.2;
    }
  }
  if (
    input.postal_code &&
    dealer.postalCode &&
    input.postal_code.trim().slice(0, 5) === dealer.postalCode.slice(0, 5)
  ) {
    reasons.push('postal code matches');
    score += 0.05;
  }
  if (input.city && dealer.city && input.city.trim().toLowerCase() === dealer.city.toLowerCase()) {
    reasons.push('city matches');
    score += 0.05;
  }
  return { dealer, score: round(Math.min(1, score)), reasons };
}

/** Candidates with any evidence, best first. */
export function rankDealers<D extends MatchableDealer>(
  input: MatchInput,
  dealers: D[],
  limit = 5,
): MatchCandidate<D>[] {
  return dealers
    .map((dealer) => scoreDealer(input, dealer))
    .filter((candidate) => candidate.score > 0.2)
    .sort((a, b) => b.score - a.score || a.dealer.name.localeCompare(b.dealer.name))
    .slice(0, limit);
}
