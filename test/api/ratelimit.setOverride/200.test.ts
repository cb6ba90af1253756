import { describe, expect, it } from "vitest";
import { namespaceRef, okVia, seedNamespace } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID } from "../../support/vias.js";

describe("ratelimit.setOverride", () => {
  const harness = useKeyward();
  const stored = (namespaceId: string, identifier: string) =>
    harness.keyward.documents.ratelimitOverrides.get(harness.keyward.workspaceId, namespaceId, identifier);

  it("creates an override for an exact identifier or a pattern and answers its id, on every transport", async () => {
    const namespaceId = await seedNamespace(harness, "set-everywhere");
    for (const via of ALL_VIAS) {
      for (const identifier of [`user-${via}`, `${via}_*`]) {
        const { overrideId } = await okVia(harness, via, "ratelimit.setOverride", {
          ...namespaceRef(via, "set-everywhere"), identifier, limit: 42, duration: 30_000,
        });
        expect(overrideId).toMatch(/^rlor_/);
        expect(await stored(namespaceId, identifier)).toEqual({
          id: overrideId, workspaceId: harness.keyward.workspaceId, namespaceId, identifier, limit: 42, duration: 30_000,
          createdAt: harness.clock.now(),
        });
      }
    }
  });

  it("answers v2 {meta, data:{overrideId}} and v1 the bare {overrideId}; v1 names the namespace by id or by name", async () => {
    const namespaceId = await seedNamespace(harness, "set-shapes");
    const v2 = await harness.rest.v2("ratelimit.setOverride", { namespace: namespaceId, identifier: "a", limit: 1, duration: 1_000 }, harness.keyward.rootKey);
    expect(v2.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { overrideId: expect.stringMatching(/^rlor_/) } });
    const byId = await harness.rest.v1Post("ratelimits.setOverride", { namespaceId, identifier: "bbb", limit: 1, duration: 1_000, async: true }, harness.keyward.rootKey);
    expect(byId.body).toEqual({ overrideId: expect.stringMatching(/^rlor_/) });
    const byName = await harness.rest.v1Post("ratelimits.setOverride", { namespaceName: "set-shapes", identifier: "ccc", limit: 1, duration: 1_000 }, harness.keyward.rootKey);
    expect(byName.status).toBe(200);
    expect(await harness.keyward.documents.ratelimitOverrides.count(harness.keyward.workspaceId, namespaceId)).toBe(3);
  });

  it("setting an identifier again changes limit and duration in place and keeps the id", async () => {
    const namespaceId = await seedNamespace(harness, "set-again");
    const first = await okVia(harness, "v2", "ratelimit.setOverride", { namespace: "set-again", identifier: "u", limit: 5, duration: 60_000 });
    harness.clock.advance(1_000);
    const second = await okVia(harness, "grpc", "ratelimit.setOverride", { namespace: namespaceId, identifier: "u", limit: 9, duration: 120_000 });
    expect(second.overrideId).toBe(first.overrideId);
    expect(await stored(namespaceId, "u")).toMatchObject({ id: first.overrideId, limit: 9, duration: 120_000, updatedAt: harness.clock.now() });
    expect(await harness.keyward.documents.ratelimitOverrides.count(harness.keyward.workspaceId, namespaceId)).toBe(1);
  });

  it("takes a limit of 0 and identifiers of up to 512 characters (Unkey v2's bounds, F8, F10)", async () => {
    const namespaceId = await seedNamespace(harness, "set-bounds");
    const zero = await harness.rest.v2("ratelimit.setOverride", { namespace: "set-bounds", identifier: "u", limit: 0, duration: 60_000 }, harness.keyward.rootKey);
    expect(zero.status).toBe(200);
    const long = await harness.rest.v2("ratelimit.setOverride", { namespace: "set-bounds", identifier: "i".repeat(512), limit: 3, duration: 60_000 }, harness.keyward.rootKey);
    expect(long.status).toBe(200);
    const got = await harness.rest.v2("ratelimit.getOverride", { namespace: "set-bounds", identifier: "u" }, harness.keyward.rootKey);
    expect(got.body.data).toMatchObject({ identifier: "u", limit: 0, duration: 60_000 });
    expect(await harness.keyward.documents.ratelimitOverrides.count(harness.keyward.workspaceId, namespaceId)).toBe(2);
  });

  it("a root key holding only ratelimit.<namespaceId>.set_override may set overrides there", async () => {
    const namespaceId = await seedNamespace(harness, "set-granted");
    const { key } = await harness.seed.rootKey([`ratelimit.${namespaceId}.set_override`]);
    for (const via of ALL_VIAS) {
      const result = await okVia(harness, via, "ratelimit.setOverride", { ...namespaceRef(via, "set-granted"), identifier: `id-${via}`, limit: 1, duration: 1_000 }, key);
      expect(result.overrideId).toMatch(/^rlor_/);
    }
  });
});
