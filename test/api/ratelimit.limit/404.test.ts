import { describe, expect, it } from "vitest";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { okVia, seedNamespace } from "../../support/ratelimit.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.limit", () => {
  const harness = useKeyward();

  it("a namespace id that names no namespace answers 404 and is not created as a name", async () => {
    const unknownId = "rlns_1DLMiqwcgSVrdeXmNtuSzC";
    for (const via of viasOf(OPERATIONS["ratelimit.limit"])) {
      await expectRefusal(harness, {
        via, op: "ratelimit.limit", input: { namespace: unknownId, identifier: "u", limit: 1, duration: 60_000 },
        authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: unknownId,
      });
    }
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, unknownId)).toBeUndefined();
  });

  it("another workspace's namespace id answers 404 there, and multiLimit refuses the whole call", async () => {
    const id = await seedNamespace(harness, "foreign");
    const other = await harness.seed.workspace("limit-404-other");
    for (const via of viasOf(OPERATIONS["ratelimit.limit"])) {
      await expectRefusal(harness, {
        via, op: "ratelimit.limit", input: { namespace: id, identifier: "u", limit: 1, duration: 60_000 },
        authorization: bearerOf(other.rootKey.key), kind: "not_found", detail: id,
      });
    }
    await expectRefusal(harness, {
      via: "v2", op: "ratelimit.multiLimit", authorization: bearerOf(other.rootKey.key), kind: "not_found", detail: id,
      input: { limits: [{ namespace: "mine", identifier: "u", limit: 1, duration: 60_000 }, { namespace: id, identifier: "u", limit: 1, duration: 60_000 }] },
    });
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(other.workspaceId, "mine")).toBeUndefined();
    expect(await okVia(harness, "v2", "ratelimit.limit", { namespace: id, identifier: "u", limit: 1, duration: 60_000, cost: 0 }))
      .toMatchObject({ remaining: 1 });
  });
});
