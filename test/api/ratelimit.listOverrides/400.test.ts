import { beforeAll, describe } from "vitest";
import { seedNamespace } from "../../support/ratelimit.js";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.listOverrides", () => {
  const harness = useKeyward();
  // The cursor is checked once the namespace is found.
  beforeAll(() => seedNamespace(harness, "list-400"));

  badInputCases(harness, "ratelimit.listOverrides", [
    ...NOT_AN_OBJECT,
    { what: "no namespace", input: {}, locations: ["body.namespace"], detail: "namespace" },
    { what: "limit 0", input: { namespace: "n", limit: 0 }, locations: ["body.limit"], detail: "limit" },
    { what: "limit 101", input: { namespace: "n", limit: 101 }, locations: ["body.limit"], detail: "limit" },
    { what: "a cursor this service did not issue", input: { namespace: "list-400", cursor: "bm90LWFuLWlk" }, locations: ["body.cursor"], detail: "cursor", vias: ["v2"] },
    { what: "an unknown field", input: { namespace: "n", x: 1 }, locations: ["body.x"], detail: "body.x" },
    { what: "a v1 query without a namespace", input: "limit=5", vias: ["v1"], detail: "namespace" },
    { what: "a v1 query with limit 0", input: "namespaceName=n&limit=0", vias: ["v1"], detail: "limit" },
    { what: "a v1 query with a non-numeric limit", input: "namespaceName=n&limit=ten", vias: ["v1"], detail: "limit" },
  ]);

  badRpcCases(harness, "ratelimit.listOverrides", [
    { what: "limit 0", input: { namespace: "n", limit: 0 }, field: "limit:" },
  ]);
});
