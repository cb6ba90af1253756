import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.listIdentities", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "identities.listIdentities", {
    validInput: async () => ({ limit: 5 }),
    field: "cursor",
  });
});
