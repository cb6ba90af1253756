/**
 * The analytics half of the VerificationEventStore contract (`query`): one body per adapter, run by
 * analytics-stores.test.ts. Events are fixed instants around the end of February of a leap year, so day and
 * month buckets are checked at a calendar edge.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { AnalyticsQuery, AnalyticsRow } from "../../src/store/analytics-query.js";
import type { VerificationEvent, VerificationEventStore } from "../../src/store/ports/events.js";

const MINUTE = 60_000;
const LAST_MS_OF_FEB = Date.UTC(2028, 2, 1) - 1;
const MARCH_1 = Date.UTC(2028, 2, 1);

/** Orders rows as the service does (time, then group values) so adapters can be compared exactly. */
export function sortRows(rows: AnalyticsRow[]): AnalyticsRow[] {
  const key = (r: AnalyticsRow) => [r.time, r.apiId ?? "", r.keyId ?? "", r.identityId ?? "", r.outcome ?? "", r.tag ?? ""].join("|");
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export function runAnalyticsContract(label: string, open: () => Promise<VerificationEventStore>): void {
  describe(`analytics query contract: ${label}`, () => {
    const stores: VerificationEventStore[] = [];
    afterAll(async () => {
      for (const store of stores) await store.close();
    });
    async function storeWith(events: VerificationEvent[]) {
      const store = await open();
      stores.push(store);
      for (const event of events) store.record(event);
      await store.flush();
      return store;
    }
    const event = (time: number, fields: Partial<VerificationEvent> = {}): VerificationEvent => ({
      time, workspaceId: "ws_A", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: [], creditsSpent: 0, latencyMs: 1, requestId: "req_1",
      ...fields,
    });
    const base = (fields: Partial<AnalyticsQuery> = {}): AnalyticsQuery => ({
      workspaceId: "ws_A", start: Date.UTC(2028, 0, 1), end: Date.UTC(2028, 3, 1), granularity: "month", groupBy: [], ...fields,
    });
    const events = [
      event(LAST_MS_OF_FEB, { tags: ["a"], creditsSpent: 2 }),
      event(LAST_MS_OF_FEB - MINUTE, { outcome: "RATE_LIMITED", tags: ["a", "b"] }),
      event(MARCH_1, { keyId: "key_2", identityId: "id_1", tags: ["b"], creditsSpent: 1 }),
      event(MARCH_1 + 1, { keyId: "key_2", identityId: "id_1", outcome: "USAGE_EXCEEDED", apiId: "api_2" }),
      event(MARCH_1, { workspaceId: "ws_B" }),
    ];

    it("buckets by UTC calendar month and day across the end of a leap February", async () => {
      const store = await storeWith(events);
      expect(sortRows(await store.query(base()))).toEqual([
        { time: Date.UTC(2028, 1, 1), total: 2, outcomes: { VALID: 1, RATE_LIMITED: 1 }, creditsSpent: 2 },
        { time: MARCH_1, total: 2, outcomes: { VALID: 1, USAGE_EXCEEDED: 1 }, creditsSpent: 1 },
      ]);
      expect(sortRows(await store.query(base({ granularity: "day" })))).toEqual([
        { time: Date.UTC(2028, 1, 29), total: 2, outcomes: { VALID: 1, RATE_LIMITED: 1 }, creditsSpent: 2 },
        { time: MARCH_1, total: 2, outcomes: { VALID: 1, USAGE_EXCEEDED: 1 }, creditsSpent: 1 },
      ]);
    });

    it("groups by tag once per tag carried, and by key, identity and api", async () => {
      const store = await storeWith(events);
      expect(sortRows(await store.query(base({ groupBy: ["tag"] })))).toEqual([
        { time: Date.UTC(2028, 1, 1), tag: "a", total: 2, outcomes: { VALID: 1, RATE_LIMITED: 1 }, creditsSpent: 2 },
        { time: Date.UTC(2028, 1, 1), tag: "b", total: 1, outcomes: { RATE_LIMITED: 1 }, creditsSpent: 0 },
        { time: MARCH_1, tag: "b", total: 1, outcomes: { VALID: 1 }, creditsSpent: 1 },
      ]);
      expect(sortRows(await store.query(base({ start: MARCH_1, groupBy: ["api", "key", "identity", "outcome"] })))).toEqual([
        { time: MARCH_1, apiId: "api_1", keyId: "key_2", identityId: "id_1", outcome: "VALID", total: 1, outcomes: { VALID: 1 }, creditsSpent: 1 },
        { time: MARCH_1, apiId: "api_2", keyId: "key_2", identityId: "id_1", outcome: "USAGE_EXCEEDED", total: 1, outcomes: { USAGE_EXCEEDED: 1 }, creditsSpent: 0 },
      ]);
    });

    it("filters: [start, end), ids, outcomes, tags any/all; another workspace and unknown values match nothing", async () => {
      const store = await storeWith(events);
      const totals = async (fields: Partial<AnalyticsQuery>) => (await store.query(base(fields))).reduce((n, r) => n + r.total, 0);
      expect(await totals({ start: MARCH_1 })).toBe(2);
      expect(await totals({ end: MARCH_1 })).toBe(2);
      expect(await totals({ start: LAST_MS_OF_FEB, end: MARCH_1 + 1 })).toBe(2);
      expect(await totals({ keyIds: ["key_2"] })).toBe(2);
      expect(await totals({ apiIds: ["api_2"] })).toBe(1);
      expect(await totals({ identityIds: ["id_1"], outcomes: ["VALID"] })).toBe(1);
      expect(await totals({ tags: ["a", "b"] })).toBe(3);
      expect(await totals({ tags: ["a", "b"], tagsMatch: "all" })).toBe(1);
      expect(await totals({ workspaceId: "ws_B" })).toBe(1);
      expect(await totals({ workspaceId: "ws_unknown" })).toBe(0);
      expect(await totals({ keyIds: ["key_unknown"] })).toBe(0);
      expect(await totals({ tags: ["never-used"] })).toBe(0);
    });
  });
}
