import { applyRefill, type CreditsState } from "../../domain/refill-calendar.js";
import { evaluateWindow, windowOf } from "../../domain/sliding-window.js";
import type { ConsumeResult, CounterStore, CreditsCheck, LimitResult } from "../ports/counters.js";
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

interface Spendable {
  check: CreditsCheck;
  balance: CreditsDoc | undefined;
  available: number;
  after: number;
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
  // The journal keeps its own copy too, but reading it clones; this map is the authoritative hot path.
  const balances = new Map<string, CreditsDoc>();
  for (const doc of journal.scan<CreditsDoc>(COLLECTION)) balances.set(doc.id, doc);
  const idempotency = createIdempotencyRecords(journal);
  const windows = new Map<string, { duration: number; slots: Windows }>();
  let latestNow = 0;
  let sweepAt = 1_024;

  const docId = (tag: string, keyId: string) => JSON.stringify([tag, keyId]);
  // Length-prefixed, so distinct (tag, bucket, duration) never share a key; cheaper than JSON on every consume.
  const bucketKey = (tag: string, bucket: string, duration: number) => `${tag.length}:${tag}${bucket.length}:${bucket}${duration}`;

  function save(doc: CreditsDoc): Promise<void> {
    balances.set(doc.id, doc);
    return journal.commit([{ op: "put", collection: COLLECTION, doc }]);
  }

  function countIn(slots: Windows | undefined, start: number): number {
    return slots?.find((w) => w.start === start)?.count ?? 0;
  }

  function add(key: string, duration: number, start: number, cost: number): void {
    let entry = windows.get(key);
    if (!entry) windows.set(key, (entry = { duration, slots: [] }));
    const slot = entry.slots.find((w) => w.start === start);
    if (slot) slot.count += cost;
    else entry.slots = [...entry.slots, { start, count: cost }].sort((a, b) => b.start - a.start).slice(0, 2);
  }

  /** Drops buckets whose newest window can no longer be current or previous; amortised O(1) per consume. */
  function sweep(): void {
    if (windows.size < sweepAt) return;
    for (const [key, { duration, slots }] of windows) {
      if (slots[0]!.start + 2 * duration <= latestNow) windows.delete(key);
    }
    sweepAt = Math.max(1_024, 2 * windows.size);
  }

  /**
   * Several balances (and the step's idempotency record) in one journal commit: one step's spends are durable
   * together or not at all.
   */
  function saveAll(docs: CreditsDoc[], also: Mutation[]): Promise<void> {
    for (const doc of docs) balances.set(doc.id, doc);
    return journal.commit([...docs.map((doc) => ({ op: "put" as const, collection: COLLECTION, doc })), ...also]);
  }

  /** One balance of a step: its refilled state, what it holds and what it would hold after the spend. */
  function spendable(tag: string, check: CreditsCheck | undefined): Spendable | undefined {
    if (!check) return undefined;
    const balance = refilled(tag, check.keyId, check.refill);
    const available = balance ? balance.remaining : 0;
    return { check, balance, available, after: available };
  }

  function short(s: Spendable | undefined): boolean {
    return s !== undefined && s.check.cost > 0 && s.available < s.check.cost;
  }

  /** Applies a passed step's spend; the document to write when the balance (or its refill) changed. */
  function spend(s: Spendable | undefined): CreditsDoc | undefined {
    if (!s?.balance) return undefined;
    s.after = s.available - s.check.cost;
    const stored = balances.get(s.balance.id);
    return s.after !== stored?.remaining || s.balance.lastRefillAt !== stored.lastRefillAt ? { ...s.balance, remaining: s.after } : undefined;
  }

  function refilled(tag: string, keyId: string, refill?: { boundary: number; amount: number }): CreditsDoc | undefined {
    const doc = balances.get(docId(tag, keyId));
    if (!doc) return undefined;
    const next = applyRefill(doc, refill);
    return next === doc ? doc : { ...doc, ...next };
  }

  return {
    async consume(plan) {
      journal.assertUsable();
      checkPlan(plan);
      const { now } = plan;
      // A retry answers the first step's result and counts nothing (a different request under the key throws).
      const replayed = plan.idempotency && idempotency.replay(plan.idempotency, now);
      if (replayed) return replayed;
      latestNow = Math.max(latestNow, now);
      const judged = plan.limits.map((check) => {
        const key = bucketKey(plan.tag, check.bucket, check.duration);
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
        return { check, key, position, verdict };
      });
      // A balance that is missing is treated as holding 0: fail closed, never hand out unpaid uses.
      const key = spendable(plan.tag, plan.credits);
      const identity = spendable(plan.tag, plan.identityCredits);
      const outcome: ConsumeResult["outcome"] = judged.some((j) => j.verdict.exceeded)
        ? "RATE_LIMITED"
        : short(key) || short(identity)
          ? "USAGE_EXCEEDED"
          : "VALID";
      const counted = outcome === "VALID";
      const changed: CreditsDoc[] = [];
      if (counted) {
        for (const j of judged) if (j.check.cost > 0) add(j.key, j.check.duration, j.position.start, j.check.cost);
        for (const doc of [spend(key), spend(identity)]) if (doc) changed.push(doc);
        sweep();
      }
      const limits: LimitResult[] = judged.map(({ check, position, verdict }) => ({
        limit: check.limit,
        remaining: counted ? verdict.remaining : verdict.remainingIfNotCounted,
        reset: position.reset,
        exceeded: verdict.exceeded,
      }));
      const result: ConsumeResult = { outcome, limits };
      if (key) result.credits = { remaining: key.after };
      if (identity) result.identityCredits = { remaining: identity.after };
      // Still in the same synchronous stretch: a concurrent retry finds the record and replays it.
      const record = plan.idempotency && idempotency.store(plan.idempotency, result, now);
      if (changed.length > 0 || record) {
        const written = saveAll(changed, record ? record.mutations : []);
        record?.remember(written);
        await written;
      }
      return result;
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
      if (doc && doc !== balances.get(doc.id)) await save(doc);
      return doc?.remaining;
    },

    async deleteCredits(tag, keyId) {
      journal.assertUsable();
      const id = docId(tag, keyId);
      if (!balances.delete(id)) return;
      await journal.commit([{ op: "delete", collection: COLLECTION, id }]);
    },

    ping: async () => journal.assertUsable(),

    stats: () => ({ buckets: windows.size, balances: balances.size, idempotency: idempotency.size() }),

    async close() {
      windows.clear();
      await journal.close();
    },
  };
}
