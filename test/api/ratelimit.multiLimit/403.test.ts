import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { okVia, seedNamespace } from "../../support/ratelimit.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC } from "../../support/vias.js";

describe("ratelimit.multiLimit", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "ratelimit.multiLimit", {
    validInput: async (h) => {
      await seedNamespace(h, "forbidden-matrix");
      return { limits: [{ namespace: "forbidden-matrix", identifier: "u", limit: 1, duration: 60_000 }] };
    },
    badInputs: { rest: ["{not json", "[]"], rpc: [{ limits: [] }, {}] },
  });

  it("one forbidden namespace refuses the whole call: 403, no namespace created, nothing counted", async () => {
    const a = await seedNamespace(harness, "multi-granted");
    const b = await seedNamespace(harness, "multi-denied");
    const { key } = await harness.seed.rootKey([`ratelimit.${a}.limit`, "ratelimit.*.create_namespace"]);
    const allowed = { namespace: "multi-granted", identifier: "u", limit: 1, duration: 60_000 };
    for (const via of V2_AND_RPC) {
      await expectRefusal(harness, {
        via, op: "ratelimit.multiLimit", authorization: bearerOf(key), kind: "forbidden",
        input: { limits: [allowed, { ...allowed, namespace: "multi-unknown" }, { ...allowed, namespace: "multi-denied" }] },
        detail: "Missing permission: ratelimit.*.limit",
      });
      await expectRefusal(harness, {
        via, op: "ratelimit.multiLimit", authorization: bearerOf(key), kind: "forbidden",
        input: { limits: [allowed, { ...allowed, namespace: "multi-denied" }] },
        detail: `Missing permission: ratelimit.*.limit or ratelimit.${b}.limit`,
      });
    }
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "multi-unknown")).toBeUndefined();
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...allowed, cost: 0 })).toMatchObject({ remaining: 1 });
  });
});
