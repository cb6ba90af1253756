/**
 * The CounterStore contract: one body, run on every adapter (counters-embedded.test.ts, counters-redis.test.ts).
 * `open` gives a fresh, empty store; the suite closes each store it opened. Plans use fixed instants, so windows
 * never roll over while a test runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConsumePlan, CounterStore, LimitCheck } from "../../src/store/ports/counters.js";

const MINUTE = 60_000;
const DAY = 86_400_000;
const MONTH = 30 * DAY;
/** 3 days and 12.345 s into an epoch-aligned 30-day window; 12.345 s into its minute. */
const T = 700 * MONTH + 3 * DAY + 12_345;
const MINUTE_START = T - 12_345;

export function runCounterStoreContract(label: string, open: () => Promise<CounterStore>): void {
  describe(`CounterStore contract: ${label}`, () => {
    let store: CounterStore;
    let seq = 0;
    /** A tag and key no other test touches. */
    const fresh = () => {
      seq += 1;
      return { tag: `key_t${seq}`, keyId: `key_t${seq}` };
    };
    const limit = (bucket: string, max: number, duration: number, cost = 1): LimitCheck => ({ bucket, limit: max, duration, cost });

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    it("counts a limit, reports remaining and the window's end, and refuses once it is used up", async () => {
      const { tag } = fresh();
      const plan: ConsumePlan = { tag, now: T, limits: [limit("key:a:default", 3, MINUTE)] };
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await store.consume(plan));
      expect(results.map((r) => r.outcome)).toEqual(["VALID", "VALID", "VALID", "RATE_LIMITED"]);
      expect(results.map((r) => r.limits)).toEqual([
        [{ limit: 3, remaining: 2, reset: MINUTE_START + MINUTE, exceeded: false }],
        [{ limit: 3, remaining: 1, reset: MINUTE_START + MINUTE, exceeded: false }],
        [{ limit: 3, remaining: 0, reset: MINUTE_START + MINUTE, exceeded: false }],
        [{ limit: 3, remaining: 0, reset: MINUTE_START + MINUTE, exceeded: true }],
      ]);
      expect(results.every((r) => r.credits === undefined)).toBe(true);
    });

    it("weighs the previous window in the next one and starts fresh two windows later", async () => {
      const { tag } = fresh();
      const at = (now: number) => store.consume({ tag, now, limits: [limit("key:a:default", 4, MINUTE)] });
      for (let i = 0; i < 4; i++) expect((await at(T)).outcome).toBe("VALID");
      // At the next window's start all 4 still count: 4 + 1 > 4.
      expect(await at(MINUTE_START + MINUTE)).toEqual({
        outcome: "RATE_LIMITED",
        limits: [{ limit: 4, remaining: 0, reset: MINUTE_START + 2 * MINUTE, exceeded: true }],
      });
      // Half-way through it: floor(4 × 0.5) = 2 of them count, so 2 more pass.
      const half = MINUTE_START + MINUTE + MINUTE / 2;
      expect((await at(half)).limits[0]).toEqual({ limit: 4, remaining: 1, reset: MINUTE_START + 2 * MINUTE, exceeded: false });
      expect((await at(half)).limits[0]!.remaining).toBe(0);
      expect((await at(half)).outcome).toBe("RATE_LIMITED");
      // Two windows later nothing of the first one is left; the second window's 2 weigh floor(2 × 59/60) = 1.
      expect((await at(MINUTE_START + 2 * MINUTE + 1_000)).limits[0]!.remaining).toBe(2);
      expect((await at(MINUTE_START + 4 * MINUTE)).limits[0]!.remaining).toBe(3);
    });

    it("keeps buckets apart: another bucket of the same tag has its own count", async () => {
      const { tag } = fresh();
      await store.consume({ tag, now: T, limits: [limit("key:a:one", 1, MINUTE)] });
      expect((await store.consume({ tag, now: T, limits: [limit("key:a:one", 1, MINUTE)] })).outcome).toBe("RATE_LIMITED");
      expect((await store.consume({ tag, now: T, limits: [limit("key:a:two", 1, MINUTE)] })).outcome).toBe("VALID");
      expect((await store.consume({ tag: fresh().tag, now: T, limits: [limit("key:a:one", 1, MINUTE)] })).outcome).toBe("VALID");
    });

    it("judges a bucket checked twice in one step against the counts before it and counts both; another duration counts apart", async () => {
      const { tag } = fresh();
      const twice = { tag, now: T, limits: [limit("key:a:same", 5, MINUTE, 2), limit("key:a:same", 5, MINUTE, 1)] };
      expect((await store.consume(twice)).limits.map((l) => l.remaining)).toEqual([3, 4]);
      expect((await store.consume(twice)).limits.map((l) => l.remaining)).toEqual([0, 1]);
      // 6 counted: now both are short, and a refused step counts nothing.
      expect(await store.consume(twice)).toEqual({
        outcome: "RATE_LIMITED",
        limits: [
          { limit: 5, remaining: 0, reset: MINUTE_START + MINUTE, exceeded: true },
          { limit: 5, remaining: 0, reset: MINUTE_START + MINUTE, exceeded: true },
        ],
      });
      // The same name under a 2-minute window is another bucket, and the 1-minute one still holds its 6.
      expect((await store.consume({ tag, now: T, limits: [limit("key:a:same", 5, 2 * MINUTE)] })).limits[0]!.remaining).toBe(4);
      expect((await store.consume({ tag, now: T, limits: [limit("key:a:same", 6, MINUTE, 0)] })).limits[0]!.remaining).toBe(0);
    });

    it("applies several limits all or nothing: after 12 of 12/min the 13th is refused and the monthly limit keeps 188", async () => {
      const { tag } = fresh();
      const plan = (now: number): ConsumePlan => ({
        tag,
        now,
        limits: [limit("key:a:perMinute", 12, MINUTE), limit("key:a:perMonth", 200, MONTH)],
      });
      for (let i = 0; i < 12; i++) expect((await store.consume(plan(T))).outcome).toBe("VALID");
      expect(await store.consume(plan(T))).toEqual({
        outcome: "RATE_LIMITED",
        limits: [
          { limit: 12, remaining: 0, reset: MINUTE_START + MINUTE, exceeded: true },
          { limit: 200, remaining: 188, reset: 701 * MONTH, exceeded: false },
        ],
      });
      // Two minutes on the minute limit is free again, and the refused call never reached the monthly count.
      expect((await store.consume(plan(T + 2 * MINUTE))).limits).toEqual([
        { limit: 12, remaining: 11, reset: MINUTE_START + 3 * MINUTE, exceeded: false },
        { limit: 200, remaining: 187, reset: 701 * MONTH, exceeded: false },
      ]);
    });

    it("changes no credits on RATE_LIMITED and reports the unchanged balance", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 10, T);
      const plan: ConsumePlan = { tag, now: T, limits: [limit("key:a:default", 1, MINUTE)], credits: { keyId, cost: 2 } };
      expect(await store.consume(plan)).toMatchObject({ outcome: "VALID", credits: { remaining: 8 } });
      expect(await store.consume(plan)).toMatchObject({ outcome: "RATE_LIMITED", credits: { remaining: 8 } });
      expect(await store.readCredits(tag, keyId)).toBe(8);
    });

    it("changes no window on USAGE_EXCEEDED: the limit reports its room as if the call never happened", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 1, T);
      const plan: ConsumePlan = { tag, now: T, limits: [limit("key:a:default", 5, MINUTE)], credits: { keyId, cost: 1 } };
      expect(await store.consume(plan)).toEqual({
        outcome: "VALID",
        limits: [{ limit: 5, remaining: 4, reset: MINUTE_START + MINUTE, exceeded: false }],
        credits: { remaining: 0 },
      });
      expect(await store.consume(plan)).toEqual({
        outcome: "USAGE_EXCEEDED",
        limits: [{ limit: 5, remaining: 4, reset: MINUTE_START + MINUTE, exceeded: false }],
        credits: { remaining: 0 },
      });
      await store.setCredits(tag, keyId, 5, T);
      expect(await store.consume(plan)).toMatchObject({ outcome: "VALID", limits: [{ remaining: 3 }], credits: { remaining: 4 } });
    });

    it("denies a cost above the balance with the balance unchanged, and allows spending it exactly", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 3, T);
      expect(await store.consume({ tag, now: T, limits: [], credits: { keyId, cost: 5 } })).toEqual({
        outcome: "USAGE_EXCEEDED",
        limits: [],
        credits: { remaining: 3 },
      });
      expect(await store.readCredits(tag, keyId)).toBe(3);
      expect(await store.consume({ tag, now: T, limits: [], credits: { keyId, cost: 3 } })).toEqual({
        outcome: "VALID",
        limits: [],
        credits: { remaining: 0 },
      });
    });

    it("passes cost 0 even on an empty balance and a full window, deducting and counting nothing", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 0, T);
      const full = limit("key:a:default", 1, MINUTE);
      expect((await store.consume({ tag, now: T, limits: [full] })).outcome).toBe("VALID");
      expect(await store.consume({ tag, now: T, limits: [{ ...full, cost: 0 }], credits: { keyId, cost: 0 } })).toEqual({
        outcome: "VALID",
        limits: [{ limit: 1, remaining: 0, reset: MINUTE_START + MINUTE, exceeded: false }],
        credits: { remaining: 0 },
      });
      await store.setCredits(tag, keyId, 4, T);
      expect(await store.consume({ tag, now: T, limits: [], credits: { keyId, cost: 0 } })).toMatchObject({ credits: { remaining: 4 } });
      expect(await store.readCredits(tag, keyId)).toBe(4);
    });

    it("refills at the boundary by replacing a lower balance, once per boundary, never adding", async () => {
      const { tag, keyId } = fresh();
      const day1 = 20_000 * DAY;
      await store.setCredits(tag, keyId, 2, day1 + 10 * 3_600_000);
      const spend = (now: number, boundary: number) =>
        store.consume({ tag, now, limits: [], credits: { keyId, cost: 1, refill: { boundary, amount: 10 } } });
      // The balance was set after today's boundary: nothing due yet.
      expect((await spend(day1 + 12 * 3_600_000, day1)).credits).toEqual({ remaining: 1 });
      // At 00:00 of the next day: replaced by 10, then 1 spent.
      expect((await spend(day1 + DAY, day1 + DAY)).credits).toEqual({ remaining: 9 });
      expect((await spend(day1 + DAY + 1, day1 + DAY)).credits).toEqual({ remaining: 8 });
      // A balance above the amount stays as it is at the next boundary.
      await store.adjustCredits(tag, keyId, { operation: "set", value: 50, now: day1 + DAY + 2 });
      expect((await spend(day1 + 2 * DAY, day1 + 2 * DAY)).credits).toEqual({ remaining: 49 });
      // Skipping several boundaries still refills to 10, not 30.
      await store.adjustCredits(tag, keyId, { operation: "set", value: 0, now: day1 + 2 * DAY });
      expect((await spend(day1 + 5 * DAY, day1 + 5 * DAY)).credits).toEqual({ remaining: 9 });
    });

    it("does not refill on a refused step, and reports the refilled balance it would have had", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 1, 0);
      const refill = { boundary: DAY, amount: 5 };
      const refused = await store.consume({ tag, now: DAY, limits: [limit("key:a:default", 0, MINUTE)], credits: { keyId, cost: 1, refill } });
      expect(refused).toMatchObject({ outcome: "RATE_LIMITED", credits: { remaining: 5 } });
      // Not stored: without the refill rule the old balance is still there.
      expect(await store.readCredits(tag, keyId)).toBe(1);
      // readCredits applies and stores a due refill.
      expect(await store.readCredits(tag, keyId, refill)).toBe(5);
      expect(await store.readCredits(tag, keyId)).toBe(5);
    });

    it("adjusts credits: set, increment, decrement clamped at 0, after a due refill", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 5, T);
      expect(await store.adjustCredits(tag, keyId, { operation: "increment", value: 3, now: T })).toBe(8);
      expect(await store.adjustCredits(tag, keyId, { operation: "decrement", value: 2, now: T })).toBe(6);
      expect(await store.adjustCredits(tag, keyId, { operation: "decrement", value: 100, now: T })).toBe(0);
      expect(await store.adjustCredits(tag, keyId, { operation: "set", value: 42, now: T })).toBe(42);
      expect(await store.readCredits(tag, keyId)).toBe(42);
      const refill = { boundary: T + DAY, amount: 100 };
      expect(await store.adjustCredits(tag, keyId, { operation: "increment", value: 1, refill, now: T + DAY })).toBe(101);
      expect(await store.readCredits(tag, keyId, refill)).toBe(101);
    });

    it("refuses an increment past 2^53 - 1 with a RangeError and keeps the balance", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 2 ** 53 - 10, T);
      await expect(store.adjustCredits(tag, keyId, { operation: "increment", value: 10, now: T })).rejects.toThrow(RangeError);
      expect(await store.readCredits(tag, keyId)).toBe(2 ** 53 - 10);
      expect(await store.adjustCredits(tag, keyId, { operation: "increment", value: 9, now: T })).toBe(2 ** 53 - 1);
    });

    it("keeps balances per tag, deletes them, and treats a missing balance as 0 (fail closed)", async () => {
      const { keyId } = fresh();
      await store.setCredits("id_a", keyId, 5, T);
      await store.setCredits("id_b", keyId, 7, T);
      await store.deleteCredits("id_a", keyId);
      expect(await store.readCredits("id_a", keyId)).toBeUndefined();
      expect(await store.readCredits("id_b", keyId)).toBe(7);
      await store.deleteCredits("id_a", keyId); // deleting what is gone is fine
      expect(await store.consume({ tag: "id_a", now: T, limits: [], credits: { keyId, cost: 1 } })).toEqual({
        outcome: "USAGE_EXCEEDED",
        limits: [],
        credits: { remaining: 0 },
      });
      expect(await store.readCredits("id_a", keyId)).toBeUndefined();
      expect(await store.adjustCredits("id_a", keyId, { operation: "increment", value: 4, now: T })).toBe(4);
    });

    it("refuses a plan it cannot judge exactly", async () => {
      const { tag, keyId } = fresh();
      await expect(store.consume({ tag, now: T, limits: [limit("key:a:x", 5, MINUTE, -1)] })).rejects.toThrow(RangeError);
      await expect(store.consume({ tag, now: T, limits: [limit("key:a:x", 5, 0)] })).rejects.toThrow(RangeError);
      await expect(store.consume({ tag, now: T, limits: [], credits: { keyId, cost: 1.5 } })).rejects.toThrow(RangeError);
      await expect(store.consume({ tag, now: T, limits: [limit("key:a:x", 5, MINUTE)] })).resolves.toMatchObject({
        limits: [{ remaining: 4 }],
      });
    });

    it("answers ping", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it("is exact under concurrency: 500 concurrent consumes of 100 credits give exactly 100 VALID", async () => {
      const { tag, keyId } = fresh();
      await store.setCredits(tag, keyId, 100, T);
      const results = await Promise.all(
        Array.from({ length: 500 }, () => store.consume({ tag, now: T, limits: [], credits: { keyId, cost: 1 } })),
      );
      const valid = results.filter((r) => r.outcome === "VALID");
      expect(valid).toHaveLength(100);
      expect(results.filter((r) => r.outcome === "USAGE_EXCEEDED")).toHaveLength(400);
      // Every VALID saw a distinct balance: no two spent the same credit.
      expect(valid.map((r) => r.credits!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(await store.readCredits(tag, keyId)).toBe(0);
    });

    it("is exact under concurrency: 300 concurrent consumes against 100/window give exactly 100 VALID", async () => {
      const { tag } = fresh();
      const plan: ConsumePlan = { tag, now: T, limits: [limit("key:a:default", 100, MINUTE)] };
      const results = await Promise.all(Array.from({ length: 300 }, () => store.consume(plan)));
      const valid = results.filter((r) => r.outcome === "VALID");
      expect(valid).toHaveLength(100);
      expect(valid.map((r) => r.limits[0]!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(results.filter((r) => r.outcome === "RATE_LIMITED")).toHaveLength(200);
      expect((await store.consume({ ...plan, limits: [{ ...plan.limits[0]!, cost: 0 }] })).limits[0]).toEqual({
        limit: 100,
        remaining: 0,
        reset: MINUTE_START + MINUTE,
        exceeded: false,
      });
    });

    it("spends a key's and its identity's balances in one step, all or nothing: the shorter one refuses both", async () => {
      const { keyId } = fresh();
      const tag = `id_${keyId}`;
      await store.setCredits(tag, keyId, 5, T);
      await store.setCredits(tag, tag, 3, T);
      const plan = (cost: number): ConsumePlan => ({
        tag, now: T, limits: [limit(`identity:${tag}:default`, 100, MINUTE)], credits: { keyId, cost }, identityCredits: { keyId: tag, cost },
      });
      expect(await store.consume(plan(2))).toMatchObject({ outcome: "VALID", credits: { remaining: 3 }, identityCredits: { remaining: 1 } });
      // The identity holds 1: refused, the key's 3 and the identity's 1 untouched, the window not counted.
      expect(await store.consume(plan(2))).toMatchObject({
        outcome: "USAGE_EXCEEDED", limits: [{ remaining: 99 }], credits: { remaining: 3 }, identityCredits: { remaining: 1 },
      });
      expect(await store.readCredits(tag, keyId)).toBe(3);
      expect(await store.readCredits(tag, tag)).toBe(1);
      // Now the key is the shorter one.
      await store.setCredits(tag, tag, 50, T);
      expect(await store.consume(plan(4))).toMatchObject({ outcome: "USAGE_EXCEEDED", credits: { remaining: 3 }, identityCredits: { remaining: 50 } });
      expect(await store.readCredits(tag, tag)).toBe(50);
      // Identity credits alone (a key without its own), with a due refill applied in the same step.
      const refill = { boundary: T, amount: 10 };
      await store.setCredits(tag, tag, 2, T - DAY);
      expect(await store.consume({ tag, now: T, limits: [], identityCredits: { keyId: tag, cost: 1, refill } })).toEqual({
        outcome: "VALID", limits: [], identityCredits: { remaining: 9 },
      });
      expect(await store.readCredits(tag, tag, refill)).toBe(9);
      // A missing identity balance holds 0: fail closed, the key's balance untouched.
      await store.deleteCredits(tag, tag);
      expect(await store.consume(plan(1))).toMatchObject({ outcome: "USAGE_EXCEEDED", credits: { remaining: 3 }, identityCredits: { remaining: 0 } });
      expect(await store.readCredits(tag, keyId)).toBe(3);
    });

    it("is exact under concurrency: 500 consumes by 3 keys of an identity sharing 100 credits give exactly 100 VALID", async () => {
      const { keyId } = fresh();
      const tag = `id_${keyId}`;
      const keys = [`${keyId}a`, `${keyId}b`, `${keyId}c`];
      await store.setCredits(tag, tag, 100, T);
      for (const key of keys) await store.setCredits(tag, key, 1_000, T);
      const results = await Promise.all(Array.from({ length: 500 }, (_, i) =>
        store.consume({ tag, now: T, limits: [], credits: { keyId: keys[i % 3]!, cost: 1 }, identityCredits: { keyId: tag, cost: 1 } })));
      const valid = results.filter((r) => r.outcome === "VALID");
      expect(valid).toHaveLength(100);
      expect(valid.map((r) => r.identityCredits!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(await store.readCredits(tag, tag)).toBe(0);
      // Each key spent exactly what its VALID verifications took.
      const spent = keys.map((_, k) => results.filter((r, i) => i % 3 === k && r.outcome === "VALID").length);
      for (const [k, key] of keys.entries()) expect(await store.readCredits(tag, key)).toBe(1_000 - spent[k]!);
    });

    it("refuses a plan naming the same balance twice", async () => {
      const { tag, keyId } = fresh();
      await expect(store.consume({ tag, now: T, limits: [], credits: { keyId, cost: 1 }, identityCredits: { keyId, cost: 1 } })).rejects.toThrow(RangeError);
      await expect(store.consume({ tag, now: T, limits: [], identityCredits: { keyId: tag, cost: -1 } })).rejects.toThrow(RangeError);
    });
  });
}
