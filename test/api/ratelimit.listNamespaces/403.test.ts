import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["ratelimit.listNamespaces"];
const BAD = { rest: ["{not json", "null", { limit: 0 }, { limit: "5" }, { search: "" }], rpc: [{ limit: 0 }, { limit: 101 }, { search: "" }] };

describe("ratelimit.listNamespaces", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "ratelimit.listNamespaces", { validInput: async () => ({ limit: 10 }), badInputs: BAD });

  it("limit, override and api permissions do not allow listing: 403 naming ratelimit.*.read_namespace", async () => {
    const { key } = await harness.seed.rootKey([
      "ratelimit.*.limit", "ratelimit.*.create_namespace", "ratelimit.*.read_override", "ratelimit.*.set_override", "api.*.read_api",
    ]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "ratelimit.listNamespaces", input: {}, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: ratelimit.*.read_namespace",
      });
    }
  });

  it("a root key holding only ratelimit.<idA>.read_namespace lists namespace A alone", async () => {
    for (const name of ["listed.a", "listed.b"]) {
      const used = await harness.rest.v2("ratelimit.limit", { namespace: name, identifier: "u", limit: 5, duration: 60_000 }, harness.keyward.rootKey);
      expect(used.status).toBe(200);
    }
    const a = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "listed.a");
    const { key } = await harness.seed.rootKey([`ratelimit.${a!.id}.read_namespace`]);
    for (const via of viasOf(op)) {
      const data = expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, {}, { authorization: bearerOf(key) }));
      const items = (via === "v2" ? data : data.data) as { id: string; name: string }[];
      expect(items.map((n) => [n.id, n.name])).toEqual([[a!.id, "listed.a"]]);
    }
  });
});
