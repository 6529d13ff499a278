import { closest } from 'fastest-levenshtein';

/** The candidate closest to what was typed (case-insensitive edit distance), for "did you mean". */
export function closestMatch(typed: string, candidates: string[]): string | undefined {
  const lowered = candidates.map((candidate) => candidate.toLowerCase());
  return candidates[lowered.indexOf(closest(typed.toLowerCase(), lowered))];
}
