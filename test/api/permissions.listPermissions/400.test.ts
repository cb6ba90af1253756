import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.listPermissions", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.listPermissions", [
    ...NOT_AN_OBJECT,
    { what: "a limit of 0", input: { limit: 0 }, locations: ["body.limit"], detail: "limit" },
    { what: "a limit of 101", input: { limit: 101 }, locations: ["body.limit"], detail: "limit" },
    { what: "a search of 257 characters", input: { search: "s".repeat(257) }, locations: ["body.search"], detail: "search" },
    { what: "a cursor this service did not issue", input: { cursor: "bm90LWFuLWlk" }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a string for the limit", input: { limit: "ten" }, locations: ["body.limit"], detail: "limit" },
  ]);
  badRpcCases(harness, "permissions.listPermissions", [
    { what: "a limit of 101", input: { limit: 101 }, field: "limit" },
  ]);
});
