/**
 * The idempotency part of the CounterStore contract (ports.ts IdempotencyCheck), run on every adapter next to
 * counters.contract.ts: a retried step replays the first result and counts nothing, another request under the same
 * key is a conflict, keys are scoped, records expire.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import type { ConsumePlan, CounterStore } from "../../src/store/ports/counters.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const T = 1_700_000_012_345;

export function runIdempotencyContract(label: string, open: () => Promise<CounterStore>): void {
  describe(`CounterStore idempotency contract: ${label}`, () => {
    let store: CounterStore;
    // A scope of its own per run: Redis outlives the run's stores.
    const scope = `ws_${randomBytes(6).toString("hex")}`;
    let seq = 0;
    const fresh = () => `key_i${++seq}_${scope}`;
    const idem = (key: string, fingerprint = "fp-a", at = T) => ({ scope, key, fingerprint, expiresAt: at + HOUR });
    const conflict = { name: "KeywardError", kind: "idempotency_conflict" };

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    function plan(tag: string, now = T, extra: Partial<ConsumePlan> = {}): ConsumePlan {
      return { tag, now, limits: [{ bucket: `key:${tag}:default`, limit: 5, duration: MINUTE, cost: 1 }], credits: { keyId: tag, cost: 2 }, ...extra };
    }

    it("replays the first result, flagged, and counts nothing more", async () => {
      const tag = fresh();
      await store.setCredits(tag, tag, 10, T);
      const first = await store.consume(plan(tag, T, { idempotency: idem("k1") }));
      expect(first).toEqual({ outcome: "VALID", limits: [{ limit: 5, remaining: 4, reset: expect.any(Number), exceeded: false }], credits: { remaining: 8 } });
      // Later in the window, the replay still reports the first step's numbers.
      const again = await store.consume(plan(tag, T + 1_000, { idempotency: idem("k1", "fp-a", T + 1_000) }));
      expect(again).toEqual({ ...first, replayed: true });
      expect(await store.readCredits(tag, tag)).toBe(8);
      expect((await store.consume(plan(tag))).limits[0]!.remaining).toBe(3);
    });

    it("a different fingerprint under the key is a conflict and counts nothing, also for another tag", async () => {
      const tag = fresh();
      const other = fresh();
      await store.setCredits(tag, tag, 10, T);
      await store.setCredits(other, other, 10, T);
      await store.consume(plan(tag, T, { idempotency: idem("k2") }));
      await expect(store.consume(plan(tag, T, { idempotency: idem("k2", "fp-b") }))).rejects.toMatchObject(conflict);
      await expect(store.consume(plan(other, T, { idempotency: idem("k2", "fp-c") }))).rejects.toMatchObject(conflict);
      await expect(store.consume(plan(other, T, { idempotency: idem("k2", "fp-c") }))).rejects.toBeInstanceOf(KeywardError);
      expect([await store.readCredits(tag, tag), await store.readCredits(other, other)]).toEqual([8, 10]);
      expect((await store.consume(plan(other))).limits[0]!.remaining).toBe(4);
    });

    it("keys of another scope never meet", async () => {
      const tag = fresh();
      await store.setCredits(tag, tag, 10, T);
      await store.consume(plan(tag, T, { idempotency: idem("k3") }));
      const elsewhere = await store.consume(plan(tag, T, { idempotency: { ...idem("k3", "fp-z"), scope: `${scope}_other` } }));
      expect(elsewhere).toMatchObject({ outcome: "VALID", credits: { remaining: 6 } });
      expect(elsewhere.replayed).toBeUndefined();
    });

    it("stores refusals too: USAGE_EXCEEDED is replayed after the balance was topped up", async () => {
      const tag = fresh();
      await store.setCredits(tag, tag, 1, T);
      expect(await store.consume(plan(tag, T, { idempotency: idem("k4") }))).toMatchObject({ outcome: "USAGE_EXCEEDED", credits: { remaining: 1 } });
      await store.setCredits(tag, tag, 50, T);
      expect(await store.consume(plan(tag, T, { idempotency: idem("k4") }))).toMatchObject({ outcome: "USAGE_EXCEEDED", credits: { remaining: 1 }, replayed: true });
      expect(await store.readCredits(tag, tag)).toBe(50);
    });

    it("keeps a step with no counters at all, so its retry is recognised too", async () => {
      const tag = fresh();
      const bare: ConsumePlan = { tag, now: T, limits: [], idempotency: idem("k5") };
      expect(await store.consume(bare)).toEqual({ outcome: "VALID", limits: [] });
      expect(await store.consume(bare)).toEqual({ outcome: "VALID", limits: [], replayed: true });
      await expect(store.consume({ ...bare, idempotency: idem("k5", "fp-other") })).rejects.toMatchObject(conflict);
    });

    it("forgets a record at its expiry: the same key and request then count again", async () => {
      const tag = fresh();
      await store.setCredits(tag, tag, 10, T);
      await store.consume(plan(tag, T, { idempotency: idem("k6") }));
      const late = T + HOUR;
      const after = await store.consume(plan(tag, late, { idempotency: idem("k6", "fp-other", late) }));
      expect(after).toMatchObject({ outcome: "VALID", credits: { remaining: 6 } });
      expect(after.replayed).toBeUndefined();
    });

    it("is exact under concurrency: 50 concurrent steps under one key count once", async () => {
      const tag = fresh();
      await store.setCredits(tag, tag, 100, T);
      const results = await Promise.all(Array.from({ length: 50 }, () => store.consume(plan(tag, T, { idempotency: idem("k7") }))));
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      expect(new Set(results.map((r) => JSON.stringify({ ...r, replayed: undefined })))).toHaveProperty("size", 1);
      expect(await store.readCredits(tag, tag)).toBe(98);
    });

    it("recall answers what a retry would get, counting and storing nothing", async () => {
      const tag = fresh();
      const other = fresh();
      await store.setCredits(tag, tag, 10, T);
      expect(await store.recall(plan(tag, T, { idempotency: idem("k9") }))).toBeUndefined();
      // Recall stored nothing: the key is still free for any request.
      const first = await store.consume(plan(tag, T, { idempotency: idem("k9") }));
      expect(await store.recall(plan(tag, T + 5, { idempotency: idem("k9", "fp-a", T + 5) }))).toEqual({ ...first, replayed: true });
      await expect(store.recall(plan(tag, T, { idempotency: idem("k9", "fp-b") }))).rejects.toMatchObject(conflict);
      await expect(store.recall(plan(other, T, { idempotency: idem("k9", "fp-b") }))).rejects.toMatchObject(conflict);
      expect(await store.recall(plan(tag, T + HOUR, { idempotency: idem("k9", "fp-a", T + HOUR) }))).toBeUndefined();
      expect(await store.recall(plan(tag))).toBeUndefined();
      expect(await store.readCredits(tag, tag)).toBe(8);
    });

    it("refuses a malformed check", async () => {
      const tag = fresh();
      await expect(store.consume({ tag, now: T, limits: [], idempotency: { ...idem("k8"), expiresAt: T } })).rejects.toThrow(RangeError);
      await expect(store.consume({ tag, now: T, limits: [], idempotency: { ...idem(""), key: "" } })).rejects.toThrow(TypeError);
    });
  });
}
