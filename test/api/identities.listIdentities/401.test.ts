import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.listIdentities", () => {
  const harness = useKeyward();
  authMatrix(harness, "identities.listIdentities", {
    validInput: async () => ({ limit: 10 }),
    badInputs: { rest: ["{not json", "null", { limit: 0 }, { limit: "x" }], rpc: [{ limit: 0 }, { limit: 101 }] },
  });
});
