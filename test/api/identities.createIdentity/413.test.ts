import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

let created = 0;

describe("identities.createIdentity", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "identities.createIdentity", {
    // Each call must succeed on its own, so each gets a fresh external id.
    validInput: async () => ({ externalId: `too_large_${++created}` }),
    field: "externalId",
  });
});
