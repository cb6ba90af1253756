import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.whoami", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.whoami", [
    ...NOT_AN_OBJECT,
    { what: "a missing key", input: {}, locations: ["body.key"], detail: "key" },
    { what: "an empty key", input: { key: "" }, locations: ["body.key"], detail: "key" },
    { what: "a key of 513 characters", input: { key: "k".repeat(513) }, locations: ["body.key"], detail: "key" },
    { what: "a number for the key", input: { key: 42 }, locations: ["body.key"], detail: "must be a string" },
    { what: "a keyId instead of the key (unknown on v2)", input: { keyId: "key_1234" }, locations: ["body.keyId"], vias: ["v2"] },
  ]);
  badRpcCases(harness, "keys.whoami", [
    { what: "a missing key", input: {}, field: "key" },
    { what: "a key of 513 characters", input: { key: "k".repeat(513) }, field: "key" },
  ]);
});
