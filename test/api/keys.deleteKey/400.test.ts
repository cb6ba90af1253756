import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const KEY = "key_1111111111111111111111";

describe("keys.deleteKey", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.deleteKey", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: {}, locations: ["body.keyId"], detail: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1234" }, locations: ["body.keyId"], detail: "pattern" },
    { what: "a keyId of 256 characters", input: { keyId: "k".repeat(256) }, locations: ["body.keyId"], detail: "keyId" },
    { what: "a string for permanent", input: { keyId: KEY, permanent: "true" }, locations: ["body.permanent"], detail: "must be a boolean" },
    { what: "an unknown field", input: { keyId: KEY, force: true }, locations: ["body.force"], vias: ["v2"] },
  ]);
  badRpcCases(harness, "keys.deleteKey", [
    { what: "a missing keyId", input: {}, field: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1234" }, field: "keyId" },
  ]);
});
