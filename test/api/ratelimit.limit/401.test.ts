import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { okVia } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.limit", () => {
  const harness = useKeyward();
  authMatrix(harness, "ratelimit.limit", {
    validInput: async () => ({ namespace: "auth-matrix", identifier: "u", limit: 1, duration: 60_000 }),
    badInputs: {
      rest: ["{not json", "[]", "", { identifier: 5 }, { namespace: "n", identifier: "u", limit: -1, duration: 1 }],
      rpc: [{ identifier: "" }, { namespace: "n", identifier: "u", limit: "1", duration: "1" }],
    },
    // Refused calls count nothing: the single allowed use is still there.
    unchanged: async (h, input) => {
      expect(await okVia(h, "v2", "ratelimit.limit", { ...input, cost: 0 })).toMatchObject({ remaining: 1 });
    },
  });
});
