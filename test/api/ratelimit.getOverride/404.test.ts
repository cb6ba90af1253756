import { describe, it } from "vitest";
import { viasOf, OPERATIONS } from "../../support/operations.js";
import { overrideNamespaceNotFound } from "../../support/override-matrices.js";
import { namespaceRef, seedNamespace, seedOverride } from "../../support/ratelimit.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.getOverride", () => {
  const harness = useKeyward();
  overrideNamespaceNotFound(harness, "ratelimit.getOverride");

  it("an identifier without its own override answers 404, even when a pattern would apply to it", async () => {
    await seedNamespace(harness, "get-missing");
    await seedOverride(harness, "get-missing", "user_*", 5);
    for (const via of viasOf(OPERATIONS["ratelimit.getOverride"])) {
      await expectRefusal(harness, {
        via, op: "ratelimit.getOverride", input: { ...namespaceRef(via, "get-missing"), identifier: "user_1" },
        authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: "user_1",
      });
    }
  });
});
