import { describe, expect, it } from "vitest";
import { namespaceRef, okVia, seedNamespace, seedOverride } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID } from "../../support/vias.js";

describe("ratelimit.listOverrides", () => {
  const harness = useKeyward();

  it("pages a namespace's overrides in creation order with a cursor, on every transport", async () => {
    const namespaceId = await seedNamespace(harness, "list-pages");
    const ids: string[] = [];
    for (const identifier of ["a", "b*", "c", "d", "e"]) {
      harness.clock.advance(1); // ids sort by creation time to the millisecond
      ids.push(await seedOverride(harness, "list-pages", identifier, 1));
    }
    await seedNamespace(harness, "list-elsewhere");
    await seedOverride(harness, "list-elsewhere", "z", 1);
    for (const via of ALL_VIAS) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const input = { ...namespaceRef(via, "list-pages", namespaceId), limit: 2, ...(cursor ? { cursor } : {}) };
        // v2 answers data and pagination side by side in the envelope: read the whole body.
        const page = via === "v2"
          ? (await harness.rest.v2("ratelimit.listOverrides", input, harness.keyward.rootKey)).body
          : await okVia(harness, via, "ratelimit.listOverrides", input);
        const items = via === "v1" ? page.overrides : page.data;
        seen.push(...items.map((o: any) => o.id ?? o.overrideId));
        cursor = via === "v1" ? page.cursor : page.pagination?.cursor;
        if (via === "v1") expect(page.total).toBe(5);
        pages++;
      } while (cursor);
      expect({ via, seen, pages }).toEqual({ via, seen: ids, pages: 3 });
    }
  });

  it("answers v2 {meta, data, pagination} and v1 {overrides, total} with the v1 override shape", async () => {
    await seedNamespace(harness, "list-shapes");
    const id = await seedOverride(harness, "list-shapes", "one", 3, 2_000);
    const v2 = await harness.rest.v2("ratelimit.listOverrides", { namespace: "list-shapes" }, harness.keyward.rootKey);
    expect(v2.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: [{ overrideId: id, identifier: "one", limit: 3, duration: 2_000 }],
      pagination: { hasMore: false },
    });
    const v1 = await harness.rest.v1Get("ratelimits.listOverrides", { namespaceName: "list-shapes" }, harness.keyward.rootKey);
    expect(v1.body).toEqual({ overrides: [{ id, identifier: "one", limit: 3, duration: 2_000 }], total: 1 });
  });

  it("v2 pages 10 overrides by default, as Unkey v2; v1 and the RPCs 100 (F20)", async () => {
    await seedNamespace(harness, "ns1");
    for (let i = 0; i < 11; i++) {
      harness.clock.advance(1);
      await seedOverride(harness, "ns1", `user-${i}`, 1);
    }
    const v2 = await harness.rest.v2("ratelimit.listOverrides", { namespace: "ns1" }, harness.keyward.rootKey);
    expect({ items: v2.body.data.length, hasMore: v2.body.pagination.hasMore, cursor: typeof v2.body.pagination.cursor })
      .toEqual({ items: 10, hasMore: true, cursor: "string" });
    const v1 = await harness.rest.v1Get("ratelimits.listOverrides", { namespaceName: "ns1" }, harness.keyward.rootKey);
    expect({ items: v1.body.overrides.length, total: v1.body.total }).toEqual({ items: 11, total: 11 });
    expect((await okVia(harness, "connect", "ratelimit.listOverrides", { namespace: "ns1" })).data).toHaveLength(11);
  });

  it("an existing namespace without overrides lists nothing", async () => {
    await seedNamespace(harness, "list-empty");
    expect(await okVia(harness, "v1", "ratelimit.listOverrides", { namespaceName: "list-empty" })).toEqual({ overrides: [], total: 0 });
  });
});
