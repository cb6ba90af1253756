import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.listNamespaces", () => {
  const harness = useKeyward();
  authMatrix(harness, "ratelimit.listNamespaces", {
    validInput: async () => ({ limit: 10, search: "email" }),
    badInputs: {
      rest: ["{not json", "null", { limit: 0 }, { limit: "5" }, { cursor: "not-a-cursor" }, { search: "" }],
      rpc: [{ limit: 0 }, { limit: 101 }, { search: "" }],
    },
  });
});
