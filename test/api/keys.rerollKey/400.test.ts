import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const KEY = "key_1111111111111111111111";

describe("keys.rerollKey", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.rerollKey", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: { expiration: 0 }, locations: ["body.keyId"], detail: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1", expiration: 0 }, locations: ["body.keyId"], detail: "pattern" },
    { what: "a negative expiration", input: { keyId: KEY, expiration: -1 }, locations: ["body.expiration"], detail: "expiration" },
    { what: "an expiration over 4102444800000", input: { keyId: KEY, expiration: 4102444800001 }, locations: ["body.expiration"] },
    { what: "a string expiration", input: { keyId: KEY, expiration: "soon" }, locations: ["body.expiration"] },
    { what: "an unknown field", input: { keyId: KEY, expiration: 0, prefix: "x" }, locations: ["body.prefix"] },
  ]);
  badRpcCases(harness, "keys.rerollKey", [
    { what: "a missing keyId", input: { expiration: "0" }, field: "keyId" },
    { what: "a negative expiration", input: { keyId: KEY, expiration: "-1" }, field: "expiration" },
  ]);
});
