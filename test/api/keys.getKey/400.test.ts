import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const KEY = "key_1111111111111111111111";

describe("keys.getKey", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.getKey", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: {}, locations: ["body.keyId"], detail: "keyId" },
    { what: "a keyId of 2 characters", input: { keyId: "ke" }, locations: ["body.keyId"], detail: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1234" }, locations: ["body.keyId"], detail: "pattern" },
    { what: "a number for the keyId", input: { keyId: 1234 }, locations: ["body.keyId"], detail: "must be a string" },
    { what: "a string for decrypt", input: { keyId: KEY, decrypt: "yes" }, locations: ["body.decrypt"], detail: "must be a boolean" },
    { what: "an unknown field", input: { keyId: KEY, key: "sk_123" }, locations: ["body.key"], detail: "body.key" },
    // v1 reads the query string: the same rules, named there.
    { what: "a query without keyId", input: {}, detail: "keyId", vias: ["v1"] },
    { what: "a query keyId with a dash", input: { keyId: "key-1234" }, detail: "pattern", vias: ["v1"] },
    { what: "a query decrypt that is not a boolean", input: { keyId: KEY, decrypt: "maybe" }, detail: "decrypt", vias: ["v1"] },
  ]);
  badRpcCases(harness, "keys.getKey", [
    { what: "a missing keyId", input: {}, field: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1234" }, field: "keyId" },
  ]);
});
