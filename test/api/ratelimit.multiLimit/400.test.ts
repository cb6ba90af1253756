import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases } from "../../support/bad-input.js";
import { okVia } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";

const check = { namespace: "multi-refused", identifier: "u", limit: 5, duration: 60_000 };

describe("ratelimit.multiLimit", () => {
  const harness = useKeyward();

  badInputCases(harness, "ratelimit.multiLimit", [
    { what: "malformed JSON", input: "[{not json", locations: ["body"], detail: "not valid JSON" },
    { what: "an empty body", input: "", locations: ["body"], detail: "empty" },
    { what: "an empty array", input: "[]", locations: ["body.limits"], detail: "at least 1" },
    { what: "101 checks", input: JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ ...check, identifier: `u${i}` }))), locations: ["body.limits"], detail: "no more than 100" },
    { what: "a string", input: '"x"', locations: ["body"], detail: "must be an object" },
    { what: "a check without identifier", input: JSON.stringify([{ ...check, identifier: undefined }]), locations: ["body.limits[0].identifier"], detail: "identifier" },
    { what: "a check with a negative limit", input: JSON.stringify([check, { ...check, identifier: "v", limit: -1 }]), locations: ["body.limits[1].limit"], detail: "limit" },
    { what: "a check with a limit of 0", input: JSON.stringify([{ ...check, limit: 0 }]), locations: ["body.limits[0].limit"], detail: "must be greater than or equal to 1" },
    { what: "a check with a short duration", input: JSON.stringify([{ ...check, duration: 10 }]), locations: ["body.limits[0].duration"], detail: "duration" },
    { what: "a check with an unknown field", input: JSON.stringify([{ ...check, extra: 1 }]), locations: ["body.limits[0].extra"], detail: "extra" },
    { what: "v1's async in a check", input: JSON.stringify([check, { ...check, identifier: "v", async: false }]), locations: ["body.limits[1].async"], detail: "async" },
    { what: "a check that is not an object", input: "[1]", locations: ["body.limits[0]"], detail: "limits[0]" },
    { what: "the same namespace and identifier twice", input: JSON.stringify([check, check]), locations: ["body.limits[1]"], detail: "repeats" },
  ]);

  badRpcCases(harness, "ratelimit.multiLimit", [
    { what: "no checks", input: { limits: [] }, field: "limits:" },
    { what: "a check without identifier", input: { limits: [{ namespace: "n", limit: "1", duration: "60000" }] }, field: "limits[0].identifier:" },
  ]);

  it("one namespace named by name and by id with the same identifier is a repeat too: 400, nothing counted", async () => {
    await okVia(harness, "v2", "ratelimit.limit", { ...check, cost: 0 });
    const namespace = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, check.namespace);
    const response = await harness.rest.v2("ratelimit.multiLimit", [check, { ...check, namespace: namespace!.id }], harness.keyward.rootKey);
    expect(response.status).toBe(400);
    expect(response.body.error.errors).toEqual([{ location: "body.limits[1]", message: "duplicate namespace and identifier" }]);
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...check, cost: 0 })).toMatchObject({ remaining: 5 });
  });

  it("a refused call counts nothing and creates no namespace", async () => {
    await harness.rest.v2("ratelimit.multiLimit", [{ ...check, namespace: "multi-never" }, { ...check, cost: -1 }], harness.keyward.rootKey);
    await harness.rest.v2("ratelimit.multiLimit", [check, check], harness.keyward.rootKey);
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "multi-never")).toBeUndefined();
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...check, cost: 0 })).toMatchObject({ remaining: 5 });
  });
});
