import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const forged = Buffer.from("../../etc/passwd").toString("base64url");

describe("apis.listApis", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.listApis", [
    ...NOT_AN_OBJECT,
    { what: "limit 0", input: { limit: 0 }, locations: ["body.limit"], detail: "limit" },
    { what: "limit 101", input: { limit: 101 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for limit", input: { limit: "5" }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "a float for limit", input: { limit: 2.5 }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "a number for the cursor", input: { cursor: 5 }, locations: ["body.cursor"], detail: "must be a string" },
    { what: "a cursor of 1025 characters", input: { cursor: "c".repeat(1025) }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a cursor this service never issued", input: { cursor: "not-a-cursor" }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a forged cursor", input: { cursor: forged }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a number for search", input: { search: 5 }, locations: ["body.search"], detail: "must be a string" },
    { what: "an array for search", input: { search: ["shop"] }, locations: ["body.search"], detail: "must be a string" },
    { what: "an empty search", input: { search: "" }, locations: ["body.search"], detail: "search" },
    { what: "a search of 257 characters", input: { search: "x".repeat(257) }, locations: ["body.search"], detail: "search" },
    { what: "an unknown field", input: { limit: 5, apiId: "api_123456789" }, locations: ["body.apiId"], detail: "body.apiId" },
  ]);

  badRpcCases(harness, "apis.listApis", [
    { what: "limit 0", input: { limit: 0 }, field: "limit:" },
    { what: "limit 101", input: { limit: 101 }, field: "limit:" },
    { what: "a cursor this service never issued", input: { cursor: "not-a-cursor" }, field: "cursor" },
    { what: "an empty search", input: { search: "" }, field: "search:" },
    { what: "a search of 257 characters", input: { search: "x".repeat(257) }, field: "search:" },
  ]);
});
