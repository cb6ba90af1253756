import { applyRefill, type CreditsState } from "../../domain/refill-calendar.js";
import { evaluateWindow, windowOf } from "../../domain/sliding-window.js";
import type { ConsumePlan, ConsumeResult, CounterStore, CreditsCheck, LimitResult } from "../ports/counters.js";
import { checkCount, checkPlan } from "../counter-input.js";
import { createIdempotencyRecords, IDEMPOTENCY_COLLECTION } from "./idempotency-records.js";
import { openJournal, type JournalOptions, type Mutation } from "./journal.js";
import { countIn, createWindowCounts, type WindowBucket } from "./window-counts.js";

/** A stored balance; the id joins tag and key id, since a key moving to an identity is re-set under the new tag. */
interface CreditsDoc extends CreditsState {
  id: string;
  tag: string;
  keyId: string;
}

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
 * Every group write appends the whole balances its steps changed (each once), so the journal is compacted while
 * running (see openJournal): its files stay under max(8 MiB, 2 × L) + L + what arrives during one compaction, L being
 * the size of a snapshot of the live balances (docs/deploy.md, "Disk use of the embedded store"); `compaction`
 * changes the numbers.
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
  const windows = createWindowCounts();
  // What the step being judged keeps per limit for its second pass: reused, as steps run one at a time.
  const step = { buckets: [] as Array<WindowBucket | undefined>, starts: [] as number[], notCounted: [] as number[] };

  const docId = (tag: string, keyId: string) => JSON.stringify([tag, keyId]);
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

  /**
   * Puts the balance after this step's spend (`state` is the balance with its refill applied) into the stored `doc`
   * itself, which no one else holds (the journal keeps a copy); whether it changed and so must be written.
   */
  function spend(doc: CreditsDoc, state: CreditsState, after: number): boolean {
    if (after === doc.remaining && state.lastRefillAt === doc.lastRefillAt) return false;
    doc.remaining = after;
    doc.lastRefillAt = state.lastRefillAt;
    return true;
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
    windows.seen(now);
    let limited = false;
    const checks = plan.limits;
    // Each limit's result as if the step counts; what a step that does not count reports instead waits in `step`.
    const limits = new Array<LimitResult>(checks.length);
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i]!;
      const position = windowOf(now, check.duration);
      const bucket = windows.find(tag, check.bucket, check.duration);
      const verdict = evaluateWindow({
        current: countIn(bucket, position.start),
        previous: countIn(bucket, position.previousStart),
        elapsed: position.elapsed,
        duration: check.duration,
        limit: check.limit,
        cost: check.cost,
      });
      if (verdict.exceeded) limited = true;
      limits[i] = { limit: check.limit, remaining: verdict.remaining, reset: position.reset, exceeded: verdict.exceeded };
      step.buckets[i] = bucket;
      step.starts[i] = position.start;
      step.notCounted[i] = verdict.remainingIfNotCounted;
    }
    // A balance that is missing is treated as holding 0: fail closed, never hand out unpaid uses.
    const { credits, identityCredits } = plan;
    const keyBalance = credits && balanceOf(tag, credits.keyId);
    const keyState = keyBalance && applyRefill(keyBalance, credits!.refill);
    const identityBalance = identityCredits && balanceOf(tag, identityCredits.keyId);
    const identityState = identityBalance && applyRefill(identityBalance, identityCredits!.refill);
    let keyAfter = keyState ? keyState.remaining : 0;
    let identityAfter = identityState ? identityState.remaining : 0;
    const outcome: ConsumeResult["outcome"] = limited
      ? "RATE_LIMITED"
      : short(credits, keyAfter) || short(identityCredits, identityAfter)
        ? "USAGE_EXCEEDED"
        : "VALID";
    const counted = outcome === "VALID";
    let mutations: Mutation[] | undefined;
    if (counted) {
      for (let i = 0; i < checks.length; i++) {
        const check = checks[i]!;
        if (check.cost === 0) continue;
        // Found again when missing: an earlier check of this step may have created the same bucket.
        const bucket = step.buckets[i] ?? windows.find(tag, check.bucket, check.duration) ?? windows.create(tag, check.bucket, check.duration);
        windows.add(bucket, step.starts[i]!, check.cost);
      }
      if (keyBalance) {
        keyAfter -= credits!.cost;
        if (spend(keyBalance, keyState!, keyAfter)) (mutations ??= []).push(put(keyBalance));
      }
      if (identityBalance) {
        identityAfter -= identityCredits!.cost;
        if (spend(identityBalance, identityState!, identityAfter)) (mutations ??= []).push(put(identityBalance));
      }
      windows.sweep();
    } else {
      for (let i = 0; i < checks.length; i++) limits[i]!.remaining = step.notCounted[i]!;
    }
    step.buckets.fill(undefined, 0, checks.length); // holds no bucket past the step, so a swept one can go
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
