/**
 * The `lastUsed` half of the VerificationEventStore contract: one body per adapter, run by events-embedded.test.ts,
 * events-memory.test.ts and events-mongo.test.ts. `open` gives a store over fresh, empty storage.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { VerificationEvent } from "../../src/store/ports/events.js";
import { manualClock, type EventStoreUnderTest, type OpenEventStoreOptions } from "./events.contract.js";

const T = 1_700_002_800_000;

export function runLastUseContract(label: string, open: (options: OpenEventStoreOptions) => Promise<EventStoreUnderTest>): void {
  describe(`VerificationEventStore.lastUsed contract: ${label}`, () => {
    const opened: EventStoreUnderTest[] = [];
    afterAll(async () => {
      for (const store of opened) await store.close();
    });
    async function fresh(): Promise<EventStoreUnderTest> {
      // The clock only drives retention; at the events' time nothing is old enough to go.
      const store = await open({ clock: manualClock(T), flushIntervalMs: 3_600_000 });
      opened.push(store);
      return store;
    }
    const workspace = () => `ws_${randomUUID().replaceAll("-", "")}`;
    const key = () => `key_${randomUUID().replaceAll("-", "")}`;
    const event = (workspaceId: string, keyId: string, time: number, fields: Partial<VerificationEvent> = {}): VerificationEvent => ({
      time, workspaceId, apiId: "api_a", keyId, outcome: "VALID", tags: [], creditsSpent: 0, latencyMs: 0.25,
      requestId: "req_1", ...fields,
    });

    it("gives each key the time of its latest written event, whatever the outcome, and leaves out keys never seen", async () => {
      const store = await fresh();
      const ws = workspace();
      const [a, b, never] = [key(), key(), key()];
      store.record(event(ws, a, T + 5));
      store.record(event(ws, a, T + 9, { outcome: "RATE_LIMITED" }));
      store.record(event(ws, a, T + 7));
      store.record(event(ws, b, T + 3, { outcome: "DISABLED" }));
      await store.flush();
      expect(await store.lastUsed(ws, [a, b, never])).toStrictEqual(new Map([[a, T + 9], [b, T + 3]]));
      expect(await store.lastUsed(ws, [])).toStrictEqual(new Map());
    });

    it("counts only written events: a buffered one shows after the flush that writes it", async () => {
      const store = await fresh();
      const ws = workspace();
      const a = key();
      store.record(event(ws, a, T + 1));
      expect(await store.lastUsed(ws, [a])).toStrictEqual(new Map());
      await store.flush();
      expect(await store.lastUsed(ws, [a])).toStrictEqual(new Map([[a, T + 1]]));
    });

    it("never moves back: an older event written in a later batch leaves the time as it was", async () => {
      const store = await fresh();
      const ws = workspace();
      const a = key();
      store.record(event(ws, a, T + 100));
      await store.flush();
      store.record(event(ws, a, T + 50));
      await store.flush();
      expect(await store.lastUsed(ws, [a])).toStrictEqual(new Map([[a, T + 100]]));
      store.record(event(ws, a, T + 150));
      await store.flush();
      expect(await store.lastUsed(ws, [a])).toStrictEqual(new Map([[a, T + 150]]));
    });

    it("never shows a key of another workspace", async () => {
      const store = await fresh();
      const [ws, other] = [workspace(), workspace()];
      const a = key();
      store.record(event(ws, a, T + 1));
      await store.flush();
      expect(await store.lastUsed(other, [a])).toStrictEqual(new Map());
      expect(await store.lastUsed(ws, [a])).toStrictEqual(new Map([[a, T + 1]]));
    });
  });
}
