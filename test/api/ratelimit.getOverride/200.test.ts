import { describe, expect, it } from "vitest";
import { namespaceRef, okVia, seedNamespace, seedOverride } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID } from "../../support/vias.js";

describe("ratelimit.getOverride", () => {
  const harness = useKeyward();

  it("returns the override of an exact identifier or pattern, matched as text, on every transport", async () => {
    const namespaceId = await seedNamespace(harness, "get-everywhere");
    const exact = await seedOverride(harness, "get-everywhere", "user_1", 10, 30_000);
    const pattern = await seedOverride(harness, "get-everywhere", "user_*", 20);
    for (const via of ALL_VIAS) {
      for (const ref of [namespaceRef(via, "get-everywhere"), namespaceRef(via, "get-everywhere", namespaceId)]) {
        const got = await okVia(harness, via, "ratelimit.getOverride", { ...ref, identifier: "user_*" });
        const idField = via === "v1" ? "id" : "overrideId";
        const view = via === "connect" || via === "grpc" || via === "grpcWeb" ? got.override : got;
        expect(view).toEqual({ [idField]: pattern, identifier: "user_*", limit: 20, duration: 60_000 });
        const exactView = await okVia(harness, via, "ratelimit.getOverride", { ...ref, identifier: "user_1" });
        expect((via === "v1" || via === "v2" ? exactView : exactView.override)[idField]).toBe(exact);
      }
    }
  });

  it("answers v2 {meta, data:{overrideId, identifier, limit, duration}} and v1 GET the bare {id, identifier, limit, duration}", async () => {
    await seedNamespace(harness, "get-shapes");
    const id = await seedOverride(harness, "get-shapes", "who", 4, 5_000);
    const v2 = await harness.rest.v2("ratelimit.getOverride", { namespace: "get-shapes", identifier: "who" }, harness.keyward.rootKey);
    expect(v2.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { overrideId: id, identifier: "who", limit: 4, duration: 5_000 } });
    const v1 = await harness.rest.v1Get("ratelimits.getOverride", { namespaceName: "get-shapes", identifier: "who" }, harness.keyward.rootKey);
    expect(v1.body).toEqual({ id, identifier: "who", limit: 4, duration: 5_000 });
  });

  it("reads without writing anything", async () => {
    await seedNamespace(harness, "get-readonly");
    await seedOverride(harness, "get-readonly", "r", 1);
    harness.writes.clear();
    for (const via of ALL_VIAS) await okVia(harness, via, "ratelimit.getOverride", { ...namespaceRef(via, "get-readonly"), identifier: "r" });
    expect(harness.writes.writes).toEqual([]);
  });
});
