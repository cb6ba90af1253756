/**
 * Which rate-limit override applies to an identifier (DESIGN.md "Rate limits", standalone overrides). Pure: the
 * service hands in the candidates its store found (the exact override, if any, and the namespace's patterns).
 *
 * Rules: an override whose identifier has no `*` applies only to that exact identifier; `*` in a pattern matches
 * any run of characters, the empty run included. An exact override always beats a pattern. Among matching
 * patterns the most specific wins: the one with the most literal (non-`*`) characters; then the one with fewer
 * `*`; then the oldest (smallest id), so the choice never depends on storage order.
 */

export interface OverrideCandidate {
  id: string;
  identifier: string;
}

/** True when `identifier` contains a `*` and is therefore a pattern rather than an exact identifier. */
export function isPattern(identifier: string): boolean {
  return identifier.includes("*");
}

/**
 * Glob match where `*` matches any run of characters and everything else matches itself. Linear-time two-pointer
 * walk with backtracking to the last `*`, so a pattern of many stars cannot blow up the way a naive regex can.
 */
export function matchesPattern(pattern: string, identifier: string): boolean {
  let p = 0;
  let i = 0;
  let star = -1;
  let resume = 0;
  while (i < identifier.length) {
    if (p < pattern.length && pattern[p] !== "*" && pattern[p] === identifier[i]) {
      p++;
      i++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = i;
    } else if (star !== -1) {
      p = star + 1;
      i = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}

/** The override that applies to `identifier` among `candidates`, or undefined when none matches. */
export function selectOverride<T extends OverrideCandidate>(identifier: string, candidates: readonly T[]): T | undefined {
  const exact = candidates.find((c) => c.identifier === identifier);
  if (exact) return exact;
  let best: T | undefined;
  for (const candidate of candidates) {
    if (!isPattern(candidate.identifier) || !matchesPattern(candidate.identifier, identifier)) continue;
    if (!best || moreSpecific(candidate, best)) best = candidate;
  }
  return best;
}

function moreSpecific(a: OverrideCandidate, b: OverrideCandidate): boolean {
  const stars = (s: string) => s.split("*").length - 1;
  const literalA = a.identifier.length - stars(a.identifier);
  const literalB = b.identifier.length - stars(b.identifier);
  if (literalA !== literalB) return literalA > literalB;
  if (stars(a.identifier) !== stars(b.identifier)) return stars(a.identifier) < stars(b.identifier);
  return a.id < b.id;
}
