import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.multiLimit", () => {
  const harness = useKeyward();
  authMatrix(harness, "ratelimit.multiLimit", {
    validInput: async () => ({ limits: [{ namespace: "auth-matrix", identifier: "u", limit: 1, duration: 60_000 }] }),
    badInputs: { rest: ["{not json", "[]", "", "[1]"], rpc: [{ limits: [] }] },
  });
});
