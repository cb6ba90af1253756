/**
 * Whether `owner` may take a job held by `lease` at `now`: the job is free when never leased, when its lease ran
 * out, or when the lease is the owner's own (a renewal). MongoDB's claim filter says the same in a query
 * (claimableJobFilter in src/store/mongo/migration-jobs.ts).
 */
export function leaseFreeFor(lease: { owner: string; until: number } | undefined, owner: string, now: number): boolean {
  return lease === undefined || lease.owner === owner || lease.until <= now;
}
