import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, expectPreconditionFailed, viaClient } from "../../support/vias.js";

describe("apis.deleteApi", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("refuses to delete a delete-protected api: v1 412 DELETE_PROTECTED, v2 412, RPC FAILED_PRECONDITION", async () => {
    const apiId = await harness.seed.api({ name: "protected", deleteProtection: true });
    const before = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      const outcome = await via(name).call("apis.deleteApi", { apiId });
      expectPreconditionFailed(outcome, { v1Code: "DELETE_PROTECTED", detail: `The api ${apiId} is protected from deletion.` });
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toEqual(before);
  });

  it("leaves the protected api readable on every transport afterwards", async () => {
    const apiId = await harness.seed.api({ name: "still-here", deleteProtection: true });
    for (const name of ALL_VIAS) await via(name).call("apis.deleteApi", { apiId });
    for (const name of ALL_VIAS) {
      const api = await via(name).ok("apis.getApi", { apiId });
      expect({ id: api.id, name: api.name }).toEqual({ id: apiId, name: "still-here" });
    }
  });

  it("checks existence before protection: an unknown id is 404, not 412", async () => {
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.deleteApi", { apiId: "api_1111111111111111111111" }, "not_found");
    }
  });

  it("an api created with deleteProtection:false deletes normally", async () => {
    for (const name of ALL_VIAS) {
      const apiId = await harness.seed.api({ name: "unprotected", deleteProtection: false });
      await via(name).ok("apis.deleteApi", { apiId });
      expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();
    }
  });
});
