import { describe, expect, it } from "vitest";
import { lastUseOf, mergeLastUse, pacedLastUseWrites, type LastUse } from "../../src/store/last-use.js";
import { lastUseFilter, lastUseUpdates } from "../../src/store/mongo/last-use-filters.js";

const T = 1_700_002_800_000;
const use = (keyId: string, time: number, workspaceId = "ws_1") => ({ keyId, workspaceId, time });

describe("last use (pure pieces)", () => {
  it("mergeLastUse keeps each key's latest time and reports only the keys it moved", () => {
    const entries = new Map<string, LastUse>();
    expect(mergeLastUse(entries, [use("key_a", T + 2), use("key_a", T + 1), use("key_b", T)])).toStrictEqual(["key_a", "key_b"]);
    expect(mergeLastUse(entries, [use("key_a", T + 2), use("key_b", T - 5)])).toStrictEqual([]);
    expect(mergeLastUse(entries, [use("key_b", T + 9)])).toStrictEqual(["key_b"]);
    expect(entries).toStrictEqual(new Map([
      ["key_a", { workspaceId: "ws_1", time: T + 2 }],
      ["key_b", { workspaceId: "ws_1", time: T + 9 }],
    ]));
  });

  it("mergeLastUse skips entries without a key id or a whole-number time", () => {
    const entries = new Map<string, LastUse>();
    expect(mergeLastUse(entries, [use("key_a", Number.NaN), use("key_a", 1.5), { workspaceId: "ws_1", time: T } as never])).toStrictEqual([]);
    expect(entries.size).toBe(0);
  });

  it("lastUseOf answers only the keys asked for, of the workspace asked for", () => {
    const entries = new Map<string, LastUse>([["key_a", { workspaceId: "ws_1", time: T }], ["key_b", { workspaceId: "ws_2", time: T }]]);
    expect(lastUseOf(entries, "ws_1", ["key_a", "key_b", "key_c"])).toStrictEqual(new Map([["key_a", T]]));
  });

  it("MongoDB: one $max upsert per key, workspace set only on insert; reads by _id within the workspace", () => {
    expect(lastUseUpdates(new Map([["key_a", { workspaceId: "ws_1", time: T }]]))).toStrictEqual([{
      updateOne: { filter: { _id: "key_a" }, update: { $max: { lastUsedAt: T }, $setOnInsert: { workspaceId: "ws_1" } }, upsert: true },
    }]);
    expect(lastUseFilter("ws_1", ["key_a", "key_b"])).toStrictEqual({ _id: { $in: ["key_a", "key_b"] }, workspaceId: "ws_1" });
  });

  it("pacedLastUseWrites writes between batches at most once per interval, swallowing failures there; afterDrain always writes and throws", async () => {
    let calls = 0;
    let fail = false;
    const persist = async () => {
      calls += 1;
      if (fail) throw new Error("disk full");
    };
    const slow = pacedLastUseWrites(persist, 3_600_000);
    await slow.betweenBatches();
    await slow.betweenBatches();
    expect(calls).toBe(0);
    await slow.afterDrain();
    expect(calls).toBe(1);
    const eager = pacedLastUseWrites(persist, 0);
    fail = true;
    await eager.betweenBatches();
    await eager.betweenBatches();
    expect(calls).toBe(3);
    await expect(eager.afterDrain()).rejects.toThrow("disk full");
  });
});
