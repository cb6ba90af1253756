import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { viasOf, OPERATIONS } from "../../support/operations.js";
import { okVia, seedNamespace } from "../../support/ratelimit.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["ratelimit.limit"];

describe("ratelimit.limit", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "ratelimit.limit", {
    validInput: async (h) => {
      await seedNamespace(h, "forbidden-matrix");
      return { namespace: "forbidden-matrix", identifier: "u", limit: 1, duration: 60_000 };
    },
    badInputs: { rest: ["{not json", "[]", { identifier: 5 }], rpc: [{ identifier: "" }, {}] },
  });

  it("an unknown namespace without ratelimit.*.create_namespace answers 403 naming it, and nothing is created", async () => {
    const { key } = await harness.seed.rootKey(["ratelimit.*.limit"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "ratelimit.limit", input: { namespace: "not-yet", identifier: "u", limit: 1, duration: 60_000 },
        authorization: bearerOf(key), kind: "forbidden", detail: "Missing permission: ratelimit.*.create_namespace",
      });
    }
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "not-yet")).toBeUndefined();
  });

  it("with create_namespace but limit granted only for another namespace, first use answers 403 naming ratelimit.*.limit", async () => {
    const other = await seedNamespace(harness, "other-granted");
    const { key } = await harness.seed.rootKey([`ratelimit.${other}.limit`, "ratelimit.*.create_namespace"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "ratelimit.limit", input: { namespace: "still-not", identifier: "u", limit: 1, duration: 60_000 },
        authorization: bearerOf(key), kind: "forbidden", detail: "Missing permission: ratelimit.*.limit",
      });
    }
  });

  it("a grant for namespace A answers 403 in namespace B, naming both grants, and counts nothing there", async () => {
    const a = await seedNamespace(harness, "ns-granted-a");
    const b = await seedNamespace(harness, "ns-granted-b");
    const { key } = await harness.seed.rootKey([`ratelimit.${a}.limit`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "ratelimit.limit", input: { namespace: "ns-granted-b", identifier: "u", limit: 1, duration: 60_000 },
        authorization: bearerOf(key), kind: "forbidden", detail: `Missing permission: ratelimit.*.limit or ratelimit.${b}.limit`,
      });
    }
    expect(await okVia(harness, "v2", "ratelimit.limit", { namespace: "ns-granted-b", identifier: "u", limit: 1, duration: 60_000, cost: 0 }))
      .toMatchObject({ remaining: 1 });
  });

  it("with both permissions first use creates the namespace and limits in it", async () => {
    const { key } = await harness.seed.rootKey(["ratelimit.*.limit", "ratelimit.*.create_namespace"]);
    expect(await okVia(harness, "v2", "ratelimit.limit", { namespace: "created-by-grant", identifier: "u", limit: 1, duration: 60_000 }, key))
      .toMatchObject({ success: true });
  });

  it("a namespace of another workspace is not visible: the same name there is a different namespace", async () => {
    await seedNamespace(harness, "per-workspace");
    await okVia(harness, "v2", "ratelimit.limit", { namespace: "per-workspace", identifier: "u", limit: 1, duration: 60_000 });
    const other = await harness.seed.workspace("ratelimit-other");
    expect(await okVia(harness, "v2", "ratelimit.limit", { namespace: "per-workspace", identifier: "u", limit: 1, duration: 60_000 }, other.rootKey.key))
      .toMatchObject({ success: true, remaining: 0 });
    const home = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "per-workspace");
    const there = await harness.keyward.documents.ratelimitNamespaces.findByName(other.workspaceId, "per-workspace");
    expect(there?.id).not.toBe(home?.id);
  });
});
