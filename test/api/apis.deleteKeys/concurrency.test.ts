import { describe, expect, it } from "vitest";
import { apiKeys, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.deleteKeys under concurrency", () => {
  const harness = useKeyward();

  // `permanent` erases soft-deleted records too (and counts them), so the race that counts each key once is between
  // soft deletes.
  it("two bulk deletes racing single deletes: every key deleted once, counted once, with exactly one key.delete record", async () => {
    const apiId = await harness.seed.api({ name: "raced" });
    const keys = await Promise.all(Array.from({ length: 30 }, () => harness.seed.key(apiId, { credits: { remaining: 3 } })));
    const { keyId: actor, key: rootKey } = await harness.seed.rootKey(["api.*.delete_key"]);
    const [bulkA, bulkB, ...singles] = await Promise.all([
      harness.rest.v2("apis.deleteKeys", { apiId }, rootKey),
      harness.rest.v1Post("apis.deleteKeys", { apiId }, rootKey),
      ...keys.slice(0, 10).map(({ keyId }) => harness.rest.v2("keys.deleteKey", { keyId }, rootKey)),
    ]);
    expect([bulkA.status, bulkB.status]).toEqual([200, 200]);
    const singleWins = singles.filter((s) => s.status === 200).length;
    expect(singles.every((s) => s.status === 200 || s.status === 404)).toBe(true);
    expect(bulkA.body.data.deletedKeys + bulkB.body.deletedKeys + singleWins).toBe(30);
    expect(await apiKeys(harness, apiId)).toEqual([]);
    // A permanent bulk delete afterwards erases the 30 soft-deleted records, and then there is nothing left to erase.
    expect((await harness.rest.v2("apis.deleteKeys", { apiId, permanent: true }, harness.keyward.rootKey)).body.data).toEqual({ deletedKeys: 30 });
    expect((await harness.rest.v2("apis.deleteKeys", { apiId, permanent: true }, harness.keyward.rootKey)).body.data).toEqual({ deletedKeys: 0 });
    for (const { key } of keys.slice(0, 5)) expect(await verifyCode(harness, key)).toBe("NOT_FOUND");
    const records = (await harness.rest.v2("auditLogs.list", { actor, limit: 100 }, harness.keyward.rootKey)).body.data;
    expect(records.every((r: any) => r.action === "key.delete")).toBe(true);
    expect(records.map((r: any) => r.resources[0].id).sort()).toEqual(keys.map((k) => k.keyId).sort());
  });
});
