import { idempotencyConflict } from "../../domain/idempotency.js";
import type { ConsumeResult, IdempotencyCheck } from "../ports/counters.js";
import type { Journal, Mutation } from "./journal.js";

/** One stored step result, journaled with the counts it spent. */
interface RecordDoc {
  id: string;
  fingerprint: string;
  expiresAt: number;
  result: ConsumeResult;
}

export const IDEMPOTENCY_COLLECTION = "idempotency";

/**
 * The embedded counter store's idempotency records (ports.ts IdempotencyCheck): held in memory, journaled in the same
 * commit as the step's credits, so an answered step's record survives kill -9 exactly as its spend does. Expired
 * records are deleted by an amortised sweep, so memory and the journal's live set stay bounded by one window's
 * traffic.
 */
export function createIdempotencyRecords(journal: Journal) {
  const records = new Map<string, { doc: RecordDoc; written: Promise<void> }>();
  for (const doc of journal.scan<RecordDoc>(IDEMPOTENCY_COLLECTION)) records.set(doc.id, { doc, written: Promise.resolve() });
  let sweepAt = Math.max(1_024, 2 * records.size);

  const idOf = (check: IdempotencyCheck) => JSON.stringify([check.scope, check.key]);

  return {
    /**
     * The stored result for a retry (awaiting its write, so a replay is never answered before the first step is
     * durable); undefined when there is none or it expired; throws the conflict when the fingerprint differs.
     */
    replay(check: IdempotencyCheck, now: number): Promise<ConsumeResult> | undefined {
      const entry = records.get(idOf(check));
      if (!entry || entry.doc.expiresAt <= now) return undefined;
      if (entry.doc.fingerprint !== check.fingerprint) throw idempotencyConflict();
      const { result } = entry.doc;
      return entry.written.then(() => ({ ...result, limits: result.limits.map((l) => ({ ...l })), replayed: true }));
    },

    /**
     * Keeps `result` under the check and returns the mutations that journal it (plus the deletion of records expired
     * by `now`, when a sweep is due); `remember` attaches the commit's promise once the caller has made it.
     */
    store(check: IdempotencyCheck, result: ConsumeResult, now: number): { mutations: Mutation[]; remember(written: Promise<void>): void } {
      const doc: RecordDoc = { id: idOf(check), fingerprint: check.fingerprint, expiresAt: check.expiresAt, result };
      const entry = { doc, written: Promise.resolve() };
      records.set(doc.id, entry);
      const mutations: Mutation[] = [{ op: "put", collection: IDEMPOTENCY_COLLECTION, doc: doc as never }];
      if (records.size >= sweepAt) {
        for (const [id, { doc: old }] of records) {
          if (old.expiresAt > now) continue;
          records.delete(id);
          mutations.push({ op: "delete", collection: IDEMPOTENCY_COLLECTION, id });
        }
        sweepAt = Math.max(1_024, 2 * records.size);
      }
      return { mutations, remember: (written) => void (entry.written = written) };
    },

    size: () => records.size,
  };
}
