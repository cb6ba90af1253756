import { describe } from "vitest";
import { seedNamespace } from "../../support/ratelimit.js";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.setOverride", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "ratelimit.setOverride", {
    validInput: async (h) => {
      await seedNamespace(h, "too-large");
      return { namespace: "too-large", identifier: "usr", limit: 1, duration: 60_000 };
    },
    field: "identifier",
  });
});
