import { applyRefill, type CreditsState } from "../../domain/refill-calendar.js";
import { evaluateWindow, windowOf, type WindowPosition, type WindowVerdict } from "../../domain/sliding-window.js";
import type { ConsumePlan, ConsumeResult, CounterStore, CreditsCheck, LimitCheck, LimitResult } from "../ports/counters.js";
import { checkCount, checkPlan } from "../counter-input.js";
import { createIdempotencyRecords, IDEMPOTENCY_COLLECTION } from "./idempotency-records.js";
import { openJournal, type JournalOptions, type Mutation } from "./journal.js";

/** A stored balance; the id joins tag and key id, since a key moving to an identity is re-set under the new tag. */
interface CreditsDoc extends CreditsState {
  id: string;
  tag: string;
  keyId: string;
}

/** Up to two windows of one bucket, newest first: only the current and the previous window ever matter. */
type Windows = Array<{ start: number; count: number }>;

const COLLECTION = "credits";

/** Whether a balance holding `available` cannot pay the check's cost. */
function short(check: CreditsCheck | undefined, available: number): boolean {
  return check !== undefined && check.cost > 0 && available < check.cost;
}

/** The port plus a look inside, for tests and diagnostics. */
export interface EmbeddedCounterStore extends CounterStore {
  /** Rate-limit buckets held in memory, balances stored, and idempotency records held. */
  stats(): { buckets: number; balances: number; idempotency: number };
}

/**
 * The counter store of a single process: credits durable in a journal under `dir` (its own directory, locked
 * against a second process), rate-limit windows in memory only (lost on restart, which at worst lets a client
 * start a fresh window). Every method runs its read-judge-write synchronously, so it is atomic under any JS
 * concurrency. A credits change resolves once written to the OS: a crash or kill -9 of the process loses none,
 * and fdatasync follows within `syncIntervalMs` (default 50 ms), so only a power loss could lose that last
 * interval. Waiting for fdatasync on every verification would put the disk's tail latency (tens of ms) into the
 * verification's; `syncIntervalMs: 0` does exactly that for those who want it.
 *
 * Every credits change appends a whole balance to the journal, so the journal is compacted while running (see
 * openJournal): its files stay under max(8 MiB, 2 × L) + L + what arrives during one compaction, L being the size of
 * a snapshot of the live balances (docs/deploy.md, "Disk use of the embedded store"); `compaction` changes the numbers.
 */
export async function createEmbeddedCounterStore(options: {
  dir: string;
  syncIntervalMs?: number;
  compaction?: JournalOptions["compaction"];
}): Promise<EmbeddedCounterStore> {
  const syncIntervalMs = options.syncIntervalMs ?? 50;
  const journal = await openJournal({
    dir: options.dir,
    collections: { [COLLECTION]: {}, [IDEMPOTENCY_COLLECTION]: {} },
    sync: syncIntervalMs === 0 ? "always" : { intervalMs: syncIntervalMs },
    compaction: options.compaction,
  });
  // The journal keeps its own copy too, but reading it clones; these maps are the authoritative hot path. By tag,
  // then key id: a lookup builds no string (the stored id, JSON of both, is made only for a new balance).
  const balances = new Map<string, Map<string, CreditsDoc>>();
  let balanceCount = 0;
  for (const doc of journal.scan<CreditsDoc>(COLLECTION)) keep(doc);
  const idempotency = createIdempotencyRecords(journal);
  const windows = new Map<string, { duration: number; slots: Windows }>();
  let latestNow = 0;
  let sweepAt = 1_024;

  const docId = (tag: string, keyId: string) => JSON.stringify([tag, keyId]);
  // Length-prefixed, so distinct (tag, bucket, duration) never share a key; cheaper than JSON on every consume.
  const bucketKey = (tag: string, bucket: string, duration: number) => `${tag.length}:${tag}${bucket.length}:${bucket}${duration}`;
  const balanceOf = (tag: string, keyId: string) => balances.get(tag)?.get(keyId);
  const put = (doc: CreditsDoc): Mutation => ({ op: "put", collection: COLLECTION, doc });

  function keep(doc: CreditsDoc): void {
    let byKey = balances.get(doc.tag);
    if (!byKey) balances.set(doc.tag, (byKey = new Map()));
    if (!byKey.has(doc.keyId)) balanceCount++;
    byKey.set(doc.keyId, doc);
  }

  function forget(tag: string, keyId: string): boolean {
    const byKey = balances.get(tag);
    if (!byKey?.delete(keyId)) return false;
    balanceCount--;
    if (byKey.size === 0) balances.delete(tag);
    return true;
  }

  function save(doc: CreditsDoc): Promise<void> {
    keep(doc);
    return journal.commit([put(doc)]);
  }

  function countIn(slots: Windows | undefined, start: number): number {
    if (slots) for (const w of slots) if (w.start === start) return w.count;
    return 0;
  }

  function add(key: string, duration: number, start: number, cost: number): void {
    let entry = windows.get(key);
    if (!entry) windows.set(key, (entry = { duration, slots: [] }));
    for (const slot of entry.slots) {
      if (slot.start === start) {
        slot.count += cost;
        return;
      }
    }
    entry.slots = [...entry.slots, { start, count: cost }].sort((a, b) => b.start - a.start).slice(0, 2);
  }

  /** Drops buckets whose newest window can no longer be current or previous; amortised O(1) per consume. */
  function sweep(): void {
    if (windows.size < sweepAt) return;
    for (const [key, { duration, slots }] of windows) {
      if (slots[0]!.start + 2 * duration <= latestNow) windows.delete(key);
    }
    sweepAt = Math.max(1_024, 2 * windows.size);
  }

  /** The balance after this step's spend, to store when it (or its refill) differs from the stored one. */
  function spent(balance: CreditsDoc, after: number): CreditsDoc | undefined {
    const stored = balanceOf(balance.tag, balance.keyId);
    return after !== stored?.remaining || balance.lastRefillAt !== stored.lastRefillAt ? { ...balance, remaining: after } : undefined;
  }

  function refilled(tag: string, keyId: string, refill?: { boundary: number; amount: number }): CreditsDoc | undefined {
    const doc = balanceOf(tag, keyId);
    if (!doc) return undefined;
    const next = applyRefill(doc, refill);
    return next === doc ? doc : { ...doc, ...next };
  }

  /**
   * The step itself, synchronous up to the journal commit (so atomic under any JS concurrency). A plain function
   * returning the commit's promise, not an async one: no suspended frame is kept per step while the commit waits.
   */
  function consume(plan: ConsumePlan): Promise<ConsumeResult> {
    journal.assertUsable();
    checkPlan(plan);
    const { tag, now } = plan;
    // A retry answers the first step's result and counts nothing (a different request under the key throws).
    const replayed = plan.idempotency && idempotency.replay(plan.idempotency, now);
    if (replayed) return replayed;
    latestNow = Math.max(latestNow, now);
    let limited = false;
    const judged = new Array<{ check: LimitCheck; key: string; position: WindowPosition; verdict: WindowVerdict }>(plan.limits.length);
    for (let i = 0; i < judged.length; i++) {
      const check = plan.limits[i]!;
      const key = bucketKey(tag, check.bucket, check.duration);
      const position = windowOf(now, check.duration);
      const slots = windows.get(key)?.slots;
      const verdict = evaluateWindow({
        current: countIn(slots, position.start),
        previous: countIn(slots, position.previousStart),
        elapsed: position.elapsed,
        duration: check.duration,
        limit: check.limit,
        cost: check.cost,
      });
      if (verdict.exceeded) limited = true;
      judged[i] = { check, key, position, verdict };
    }
    // A balance that is missing is treated as holding 0: fail closed, never hand out unpaid uses.
    const { credits, identityCredits } = plan;
    const keyBalance = credits && refilled(tag, credits.keyId, credits.refill);
    const identityBalance = identityCredits && refilled(tag, identityCredits.keyId, identityCredits.refill);
    let keyAfter = keyBalance ? keyBalance.remaining : 0;
    let identityAfter = identityBalance ? identityBalance.remaining : 0;
    const outcome: ConsumeResult["outcome"] = limited
      ? "RATE_LIMITED"
      : short(credits, keyAfter) || short(identityCredits, identityAfter)
        ? "USAGE_EXCEEDED"
        : "VALID";
    const counted = outcome === "VALID";
    let mutations: Mutation[] | undefined;
    if (counted) {
      for (const j of judged) if (j.check.cost > 0) add(j.key, j.check.duration, j.position.start, j.check.cost);
      if (keyBalance) {
        keyAfter -= credits!.cost;
        const doc = spent(keyBalance, keyAfter);
        if (doc) {
          keep(doc);
          (mutations ??= []).push(put(doc));
        }
      }
      if (identityBalance) {
        identityAfter -= identityCredits!.cost;
        const doc = spent(identityBalance, identityAfter);
        if (doc) {
          keep(doc);
          (mutations ??= []).push(put(doc));
        }
      }
      sweep();
    }
    const limits = new Array<LimitResult>(judged.length);
    for (let i = 0; i < judged.length; i++) {
      const { check, position, verdict } = judged[i]!;
      limits[i] = {
        limit: check.limit,
        remaining: counted ? verdict.remaining : verdict.remainingIfNotCounted,
        reset: position.reset,
        exceeded: verdict.exceeded,
      };
    }
    const result: ConsumeResult = { outcome, limits };
    if (credits) result.credits = { remaining: keyAfter };
    if (identityCredits) result.identityCredits = { remaining: identityAfter };
    // Still in the same synchronous stretch: a concurrent retry finds the record and replays it.
    const record = plan.idempotency && idempotency.store(plan.idempotency, result, now);
    if (record) mutations = mutations ? mutations.concat(record.mutations) : record.mutations;
    if (!mutations) return Promise.resolve(result);
    // One step's balances and its record are durable together or not at all.
    const written = journal.commit(mutations);
    record?.remember(written);
    return written.then(() => result);
  }

  return {
    consume(plan) {
      try {
        return consume(plan);
      } catch (error) {
        return Promise.reject(error);
      }
    },

    async recall(plan) {
      journal.assertUsable();
      checkPlan(plan);
      return plan.idempotency && idempotency.replay(plan.idempotency, plan.now);
    },

    async setCredits(tag, keyId, remaining, now) {
      journal.assertUsable();
      checkCount("remaining", remaining);
      await save({ id: docId(tag, keyId), tag, keyId, remaining, lastRefillAt: now });
    },

    async adjustCredits(tag, keyId, change) {
      journal.assertUsable();
      checkCount("value", change.value);
      const base = refilled(tag, keyId, change.refill) ?? { id: docId(tag, keyId), tag, keyId, remaining: 0, lastRefillAt: change.now };
      const remaining =
        change.operation === "set"
          ? change.value
          : change.operation === "increment"
            ? base.remaining + change.value
            : Math.max(0, base.remaining - change.value);
      if (!Number.isSafeInteger(remaining)) throw new RangeError("credits balance would exceed 2^53");
      await save({ ...base, remaining });
      return remaining;
    },

    async readCredits(tag, keyId, refill) {
      journal.assertUsable();
      const doc = refilled(tag, keyId, refill);
      if (doc && doc !== balanceOf(tag, keyId)) await save(doc);
      return doc?.remaining;
    },

    async deleteCredits(tag, keyId) {
      journal.assertUsable();
      if (!forget(tag, keyId)) return;
      await journal.commit([{ op: "delete", collection: COLLECTION, id: docId(tag, keyId) }]);
    },

    ping: async () => journal.assertUsable(),

    stats: () => ({ buckets: windows.size, balances: balanceCount, idempotency: idempotency.size() }),

    async close() {
      windows.clear();
      await journal.close();
    },
  };
}
