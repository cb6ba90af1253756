/** A credit threshold as stored on an endpoint. */
export type CreditLevel = { remaining: number } | { percent: number };

/**
 * The levels a verification crossed downwards: its balance went from `after + cost` (above the level) to `after`
 * (at or below it). With atomic counters exactly one verification sees each crossing, so each level fires once per
 * crossing and a refill or credit update (which moves the balance back up) re-arms it without any stored state.
 * A percent level is that share of `base` (percentBase), rounded down; without a base it never fires.
 */
export function crossedLevels(levels: readonly CreditLevel[], balance: { after: number; cost: number; base?: number }): number[] {
  if (balance.cost <= 0) return [];
  const before = balance.after + balance.cost;
  const crossed = new Set<number>();
  for (const level of levels) {
    const at = "remaining" in level ? level.remaining : balance.base === undefined ? undefined : Math.floor((level.percent * balance.base) / 100);
    if (at !== undefined && before > at && balance.after <= at) crossed.add(at);
  }
  return [...crossed].sort((a, b) => b - a);
}

/**
 * What a key's percent levels count against: its refill amount, else the balance it was last given outright (at
 * creation, import, updateKey's credits or an updateCredits "set"); undefined for records stored before that was kept.
 */
export function percentBase(credits: { refill?: { amount: number }; base?: number } | undefined): number | undefined {
  return credits?.refill?.amount ?? credits?.base;
}
