/**
 * The VerificationEventStore contract: one body, run on every adapter (events-embedded.test.ts, events-memory.test.ts,
 * events-mongo.test.ts). `open` gives a store over fresh, empty storage; the suite closes every store it opened.
 * Event times are fixed instants; only retention reads the injected clock.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/domain/clock.js";
import type { EventBatchingOptions, EventStoreStats } from "../../src/store/event-batcher.js";
import type { VerificationEvent, VerificationEventStore } from "../../src/store/ports/events.js";

export interface EventStoreUnderTest extends VerificationEventStore {
  stats(): EventStoreStats;
}
export interface OpenEventStoreOptions extends EventBatchingOptions {
  clock: Clock;
  retention?: { maxAgeMs?: number; maxEvents?: number };
}
export interface EventStoreFeatures {
  /** Retention is enforced at flush against the injected clock (embedded); MongoDB's TTL runs on the server. */
  clockRetention: boolean;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** An hour boundary, so buckets and segments line up predictably. */
const T = 1_700_002_800_000;
const ALL_TIME = { since: 0, until: 4_000_000_000_000 };

export function manualClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** Polls `condition` until it holds, for at most `timeoutMs`; never a fixed sleep. */
async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function runEventStoreContract(
  label: string,
  open: (options: OpenEventStoreOptions) => Promise<EventStoreUnderTest>,
  features: EventStoreFeatures,
): void {
  describe(`VerificationEventStore contract: ${label}`, () => {
    const opened: EventStoreUnderTest[] = [];
    afterAll(async () => {
      for (const store of opened) await store.close();
    });
    async function fresh(options: Partial<OpenEventStoreOptions> = {}): Promise<EventStoreUnderTest> {
      const store = await open({ clock: manualClock(T), ...options });
      opened.push(store);
      return store;
    }
    /** A workspace id no other test (or earlier run against a shared database) uses. */
    const workspace = () => `ws_${randomUUID().replaceAll("-", "")}`;
    const event = (workspaceId: string, fields: Partial<VerificationEvent> = {}): VerificationEvent => ({
      time: T, workspaceId, apiId: "api_a", keyId: "key_a", outcome: "VALID", tags: [],
      creditsSpent: 0, latencyMs: 0.25, requestId: "req_1", ...fields,
    });

    it("counts flushed events per bucket and outcome, oldest bucket first and outcomes in order", async () => {
      const store = await fresh();
      const ws = workspace();
      const times = [T, T + 1, T + MINUTE - 1, T + MINUTE, T + 3 * MINUTE + 5];
      for (const time of times) store.record(event(ws, { time }));
      store.record(event(ws, { time: T + 10, outcome: "RATE_LIMITED" }));
      store.record(event(ws, { time: T + MINUTE + 10, outcome: "USAGE_EXCEEDED" }));
      store.record(event(ws, { time: T + MINUTE + 11, outcome: "DISABLED" }));
      await store.flush();
      expect(await store.aggregate({ workspaceId: ws, since: T, until: T + HOUR, bucketMs: MINUTE })).toStrictEqual([
        { time: T, outcome: "RATE_LIMITED", count: 1 },
        { time: T, outcome: "VALID", count: 3 },
        { time: T + MINUTE, outcome: "DISABLED", count: 1 },
        { time: T + MINUTE, outcome: "USAGE_EXCEEDED", count: 1 },
        { time: T + MINUTE, outcome: "VALID", count: 1 },
        { time: T + 3 * MINUTE, outcome: "VALID", count: 1 },
      ]);
      expect(await store.aggregate({ workspaceId: ws, since: T, until: T + HOUR, bucketMs: HOUR })).toStrictEqual([
        { time: T, outcome: "DISABLED", count: 1 },
        { time: T, outcome: "RATE_LIMITED", count: 1 },
        { time: T, outcome: "USAGE_EXCEEDED", count: 1 },
        { time: T, outcome: "VALID", count: 5 },
      ]);
      expect(store.stats()).toMatchObject({ buffered: 0, written: 8, dropped: 0, failedWrites: 0 });
    });

    it("includes since, excludes until, and spans hours and days", async () => {
      const store = await fresh();
      const ws = workspace();
      for (const time of [T - 1, T, T + HOUR - 1, T + HOUR, T + DAY + 7]) store.record(event(ws, { time }));
      await store.flush();
      const q = { workspaceId: ws, bucketMs: HOUR };
      expect(await store.aggregate({ ...q, since: T, until: T + HOUR })).toStrictEqual([{ time: T, outcome: "VALID", count: 2 }]);
      expect(await store.aggregate({ ...q, since: T - HOUR, until: T + 2 * DAY })).toStrictEqual([
        { time: T - HOUR, outcome: "VALID", count: 1 },
        { time: T, outcome: "VALID", count: 2 },
        { time: T + HOUR, outcome: "VALID", count: 1 },
        { time: T + DAY, outcome: "VALID", count: 1 },
      ]);
      expect(await store.aggregate({ ...q, since: T + 2 * HOUR, until: T + DAY })).toStrictEqual([]);
    });

    it("narrows by api, key, identity, outcome and tag, each alone and combined", async () => {
      const store = await fresh();
      const ws = workspace();
      store.record(event(ws, { apiId: "api_a", keyId: "key_a", identityId: "id_1", tags: ["path=/a", "eu"] }));
      store.record(event(ws, { apiId: "api_a", keyId: "key_b", identityId: "id_1", tags: ["path=/b"], outcome: "RATE_LIMITED" }));
      store.record(event(ws, { apiId: "api_b", keyId: "key_c", identityId: "id_2", tags: ["eu"] }));
      store.record(event(ws, { apiId: "api_b", keyId: "key_d", tags: [], outcome: "EXPIRED" }));
      await store.flush();
      const total = async (filters: object) => {
        const rows = await store.aggregate({ workspaceId: ws, ...ALL_TIME, bucketMs: DAY, ...filters });
        return rows.map((r) => `${r.outcome}:${r.count}`).join(",");
      };
      expect(await total({})).toBe("EXPIRED:1,RATE_LIMITED:1,VALID:2");
      expect(await total({ apiId: "api_a" })).toBe("RATE_LIMITED:1,VALID:1");
      expect(await total({ apiId: "api_b" })).toBe("EXPIRED:1,VALID:1");
      expect(await total({ keyId: "key_b" })).toBe("RATE_LIMITED:1");
      expect(await total({ identityId: "id_1" })).toBe("RATE_LIMITED:1,VALID:1");
      expect(await total({ identityId: "id_2" })).toBe("VALID:1");
      expect(await total({ outcome: "VALID" })).toBe("VALID:2");
      expect(await total({ tag: "eu" })).toBe("VALID:2");
      expect(await total({ tag: "path=/b" })).toBe("RATE_LIMITED:1");
      expect(await total({ tag: "path" })).toBe(""); // a tag matches whole, never as a prefix
      expect(await total({ apiId: "api_b", tag: "eu" })).toBe("VALID:1");
      expect(await total({ apiId: "api_a", outcome: "EXPIRED" })).toBe("");
      expect(await total({ keyId: "key_unknown" })).toBe("");
    });

    it("never shows one workspace's events to another", async () => {
      const store = await fresh();
      const [a, b] = [workspace(), workspace()];
      for (let i = 0; i < 3; i++) store.record(event(a));
      store.record(event(b, { outcome: "DISABLED" }));
      await store.flush();
      const q = { ...ALL_TIME, bucketMs: DAY };
      expect(await store.aggregate({ ...q, workspaceId: a })).toStrictEqual([{ time: T - (T % DAY), outcome: "VALID", count: 3 }]);
      expect(await store.aggregate({ ...q, workspaceId: b })).toStrictEqual([{ time: T - (T % DAY), outcome: "DISABLED", count: 1 }]);
      expect(await store.aggregate({ ...q, workspaceId: workspace() })).toStrictEqual([]);
    });

    it("writes in the background: on the timer, and as soon as a batch is full", async () => {
      const timed = await fresh({ flushIntervalMs: 20 });
      const ws = workspace();
      timed.record(event(ws));
      timed.record(event(ws));
      await until(() => timed.stats().written === 2);
      expect(await timed.aggregate({ workspaceId: ws, ...ALL_TIME, bucketMs: DAY })).toStrictEqual([
        { time: T - (T % DAY), outcome: "VALID", count: 2 },
      ]);

      const full = await fresh({ flushIntervalMs: 3_600_000, batchSize: 100 });
      for (let i = 0; i < 99; i++) full.record(event(ws));
      expect(full.stats()).toMatchObject({ buffered: 99, written: 0 });
      full.record(event(ws));
      await until(() => full.stats().written === 100);
      expect(full.stats()).toMatchObject({ buffered: 0, dropped: 0 });
    });

    it("accepts a burst of 50 000 events synchronously and writes every one", async () => {
      const store = await fresh();
      const ws = workspace();
      const started = performance.now();
      let returned: unknown;
      for (let i = 0; i < 50_000; i++) returned = store.record(event(ws, { time: T + (i % 60) * MINUTE, outcome: i % 10 ? "VALID" : "RATE_LIMITED" }));
      const elapsed = performance.now() - started;
      expect(returned).toBeUndefined(); // not a promise: nothing to await on the hot path
      expect(elapsed).toBeLessThan(1000);
      expect(store.stats().buffered).toBe(50_000);
      await store.flush();
      expect(store.stats()).toMatchObject({ buffered: 0, written: 50_000, dropped: 0 });
      const rows = await store.aggregate({ workspaceId: ws, ...ALL_TIME, bucketMs: HOUR });
      expect(rows).toStrictEqual([
        { time: T, outcome: "RATE_LIMITED", count: 5_000 },
        { time: T, outcome: "VALID", count: 45_000 },
      ]);
    });

    it("writes a backlog one batch per turn, so requests waiting meanwhile are served in between", async () => {
      const store = await fresh({ batchSize: 100, flushIntervalMs: 3_600_000 });
      const ws = workspace();
      for (let i = 0; i < 300; i++) store.record(event(ws));
      // Queued before the drain starts: it runs at the first turn boundary the drain leaves.
      const writtenAtNextTurn = new Promise<number>((resolve) => setImmediate(() => resolve(store.stats().written)));
      await store.flush();
      expect(await writtenAtNextTurn).toBeLessThan(300);
      expect(store.stats()).toMatchObject({ buffered: 0, written: 300, dropped: 0 });
      expect(await store.aggregate({ workspaceId: ws, ...ALL_TIME, bucketMs: DAY })).toStrictEqual([
        { time: T - (T % DAY), outcome: "VALID", count: 300 },
      ]);
    });

    it("drops the oldest events beyond the buffer bound and counts them", async () => {
      const store = await fresh({ maxBuffered: 1_000, batchSize: 1_000, flushIntervalMs: 3_600_000 });
      const ws = workspace();
      for (let i = 0; i < 1_500; i++) store.record(event(ws, { time: i < 500 ? T : T + HOUR }));
      expect(store.stats()).toMatchObject({ buffered: 1_000, dropped: 500 });
      await store.flush();
      expect(store.stats()).toMatchObject({ buffered: 0, written: 1_000, dropped: 500 });
      expect(await store.aggregate({ workspaceId: ws, ...ALL_TIME, bucketMs: HOUR })).toStrictEqual([
        { time: T + HOUR, outcome: "VALID", count: 1_000 },
      ]);
    });

    it("never throws from record, even after close: late events are dropped and counted", async () => {
      const store = await open({ clock: manualClock(T) });
      const ws = workspace();
      store.record(event(ws));
      expect(() => store.record(null as unknown as VerificationEvent)).not.toThrow();
      await store.close();
      expect(store.stats()).toMatchObject({ written: 1, dropped: 1 });
      for (let i = 0; i < 10; i++) expect(() => store.record(event(ws))).not.toThrow();
      expect(() => store.record(undefined as unknown as VerificationEvent)).not.toThrow();
      expect(store.stats()).toMatchObject({ buffered: 0, written: 1, dropped: 12 });
      await store.close(); // a second close is harmless
    });

    it.runIf(features.clockRetention)("deletes events older than maxAgeMs once the clock passes them", async () => {
      const clock = manualClock(T);
      const store = await fresh({ clock, retention: { maxAgeMs: 30 * DAY } });
      const ws = workspace();
      for (let i = 0; i < 5; i++) store.record(event(ws, { time: T }));
      await store.flush();
      clock.advance(29 * DAY);
      store.record(event(ws, { time: clock.now() }));
      await store.flush();
      const q = { workspaceId: ws, ...ALL_TIME, bucketMs: DAY };
      expect((await store.aggregate(q)).map((r) => r.count)).toStrictEqual([5, 1]);
      clock.advance(DAY + HOUR); // the first hour is now entirely older than 30 days
      await store.flush();
      expect(await store.aggregate(q)).toStrictEqual([{ time: T + 29 * DAY - (T % DAY), outcome: "VALID", count: 1 }]);
    });

    it.runIf(features.clockRetention)("deletes the oldest hours once more than maxEvents are stored, never the newest", async () => {
      const store = await fresh({ retention: { maxEvents: 100 } });
      const ws = workspace();
      for (const hour of [0, 1, 2]) for (let i = 0; i < 60; i++) store.record(event(ws, { time: T + hour * HOUR + i }));
      await store.flush();
      const q = { workspaceId: ws, ...ALL_TIME, bucketMs: HOUR };
      expect(await store.aggregate(q)).toStrictEqual([{ time: T + 2 * HOUR, outcome: "VALID", count: 60 }]);
      for (let i = 0; i < 150; i++) store.record(event(ws, { time: T + 3 * HOUR }));
      await store.flush();
      expect(await store.aggregate(q)).toStrictEqual([{ time: T + 3 * HOUR, outcome: "VALID", count: 150 }]);
    });
  });
}
