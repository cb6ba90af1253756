import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID, viaClient } from "../../support/vias.js";

/** The settings of a new api (apis.updateApi changes them): no allow-list, no protection, no stored keys, 16 bytes. */
const NEW_API_SETTINGS = { ipWhitelist: [], deleteProtection: false, storeEncryptedKeys: false, defaultBytes: 16 };

describe("apis.getApi", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("returns the api's id, name and workspaceId on every transport", async () => {
    const apiId = await harness.seed.api({ name: "readable" });
    for (const name of ALL_VIAS) {
      const api = await via(name).ok("apis.getApi", { apiId });
      expect({ id: api.id, name: api.name, workspaceId: api.workspaceId }).toEqual({
        id: apiId, name: "readable", workspaceId: harness.keyward.workspaceId,
      });
    }
  });

  it("answers v2 with exactly {meta, data:{id, name, workspaceId, settings}} and v1 with Unkey's bare {id, name, workspaceId}", async () => {
    const apiId = await harness.seed.api({ name: "shaped" });
    const v2 = await harness.rest.v2("apis.getApi", { apiId }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: { id: apiId, name: "shaped", workspaceId: harness.keyward.workspaceId, ...NEW_API_SETTINGS },
    });
    const v1 = await harness.rest.v1Get("apis.getApi", { apiId }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ id: apiId, name: "shaped", workspaceId: harness.keyward.workspaceId });
  });

  it("serves a root key holding read_api for exactly this api, as well as one holding api.*.read_api", async () => {
    const apiId = await harness.seed.api({ name: "scoped" });
    const specific = await harness.seed.rootKey([`api.${apiId}.read_api`]);
    const wildcard = await harness.seed.rootKey(["api.*.read_api"]);
    for (const key of [specific.key, wildcard.key]) {
      for (const name of ALL_VIAS) {
        expect((await via(name).ok("apis.getApi", { apiId }, key)).id).toBe(apiId);
      }
    }
  });

  it("reads without writing anything", async () => {
    const apiId = await harness.seed.api({ name: "untouched" });
    const before = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
    harness.writes.clear();
    for (const name of ALL_VIAS) await via(name).ok("apis.getApi", { apiId });
    expect(harness.writes.writes).toEqual([]);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toEqual(before);
  });
});
