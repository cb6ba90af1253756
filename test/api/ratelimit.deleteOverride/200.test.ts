import { describe, expect, it } from "vitest";
import { namespaceRef, okVia, seedNamespace, seedOverride } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID } from "../../support/vias.js";

describe("ratelimit.deleteOverride", () => {
  const harness = useKeyward();

  it("deletes the override of an identifier; limit calls fall back to the request's limit, on every transport", async () => {
    const namespaceId = await seedNamespace(harness, "delete-everywhere");
    for (const via of ALL_VIAS) {
      const identifier = `${via}_*`;
      await seedOverride(harness, "delete-everywhere", identifier, 50);
      const check = { namespace: "delete-everywhere", identifier: `${via}_1`, limit: 2, duration: 60_000, cost: 0 };
      expect(await okVia(harness, "v2", "ratelimit.limit", check)).toMatchObject({ limit: 50 });
      expect(await okVia(harness, via, "ratelimit.deleteOverride", { ...namespaceRef(via, "delete-everywhere"), identifier })).toEqual({});
      expect(await harness.keyward.documents.ratelimitOverrides.get(harness.keyward.workspaceId, namespaceId, identifier)).toBeUndefined();
      const after = await okVia(harness, "v2", "ratelimit.limit", check);
      expect(after).toMatchObject({ limit: 2 });
      expect(after.overrideId).toBeUndefined();
    }
  });

  it("answers v2 {meta, data:{}} and v1 {}; only the named identifier's override goes", async () => {
    const namespaceId = await seedNamespace(harness, "delete-shapes");
    await seedOverride(harness, "delete-shapes", "a", 1);
    await seedOverride(harness, "delete-shapes", "b", 1);
    const v2 = await harness.rest.v2("ratelimit.deleteOverride", { namespace: namespaceId, identifier: "a" }, harness.keyward.rootKey);
    expect(v2.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: {} });
    const v1 = await harness.rest.v1Post("ratelimits.deleteOverride", { namespaceId, identifier: "b" }, harness.keyward.rootKey);
    expect(v1.body).toEqual({});
    expect(await harness.keyward.documents.ratelimitOverrides.count(harness.keyward.workspaceId, namespaceId)).toBe(0);
  });
});
