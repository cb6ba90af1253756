import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.createApi", () => {
  const harness = useKeyward();
  authMatrix(harness, "apis.createApi", {
    validInput: async () => ({ name: "auth-matrix" }),
    badInputs: {
      rest: ["{not json", "[]", "", { name: 5, unknownField: true }, { name: "x" }],
      rpc: [{ name: "ab" }, { name: "1-starts-with-a-digit" }],
    },
  });
});
