import { describe, it } from "vitest";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { overrideNamespaceNotFound } from "../../support/override-matrices.js";
import { namespaceRef, seedNamespace } from "../../support/ratelimit.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.deleteOverride", () => {
  const harness = useKeyward();
  overrideNamespaceNotFound(harness, "ratelimit.deleteOverride");

  it("an identifier without an override answers 404 naming it; deleting twice answers 404 the second time", async () => {
    await seedNamespace(harness, "delete-missing");
    for (const via of viasOf(OPERATIONS["ratelimit.deleteOverride"])) {
      await expectRefusal(harness, {
        via, op: "ratelimit.deleteOverride", input: { ...namespaceRef(via, "delete-missing"), identifier: "ghost" },
        authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: "ghost",
      });
    }
  });
});
