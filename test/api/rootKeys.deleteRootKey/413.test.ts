import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.deleteRootKey", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "rootKeys.deleteRootKey", {
    validInput: async (h) => ({ keyId: (await h.seed.rootKey(["api.*.read_api"])).keyId }),
    field: "keyId",
  });
});
