import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID, viaClient } from "../../support/vias.js";

const API_ID = /^api_[1-9A-HJ-NP-Za-km-z]{22}$/;

describe("apis.createApi", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  const stored = (apiId: string) => harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);

  it("creates an api in the caller's workspace on every transport, stored with its name and defaults", async () => {
    for (const name of ALL_VIAS) {
      harness.clock.advance(1_000);
      const { apiId } = await via(name).ok("apis.createApi", { name: `created-${name}` });
      expect(apiId).toMatch(API_ID);
      expect(await stored(apiId)).toEqual({
        id: apiId,
        workspaceId: harness.keyward.workspaceId,
        name: `created-${name}`,
        createdAt: harness.clock.now(),
        deleteProtection: false,
        storeEncryptedKeys: false,
      });
    }
  });

  it("answers v2 with exactly {meta:{requestId}, data:{apiId}} and v1 with exactly {apiId}", async () => {
    const v2 = await harness.rest.v2("apis.createApi", { name: "shape-v2" }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { apiId: expect.stringMatching(API_ID) } });
    expect(v2.headers.get("content-type")).toBe("application/json");
    const v1 = await harness.rest.v1Post("apis.createApi", { name: "shape-v1" }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ apiId: expect.stringMatching(API_ID) });
  });

  it("stores deleteProtection and storeEncryptedKeys when given, on every transport", async () => {
    for (const name of ALL_VIAS) {
      const { apiId } = await via(name).ok("apis.createApi", { name: "guarded", deleteProtection: true, storeEncryptedKeys: true });
      expect(await stored(apiId)).toMatchObject({ id: apiId, deleteProtection: true, storeEncryptedKeys: true });
    }
  });

  it("gives each call a new id, even for the same name, sortable by creation time", async () => {
    const ids: string[] = [];
    for (const name of ALL_VIAS) {
      harness.clock.advance(1);
      ids.push((await via(name).ok("apis.createApi", { name: "same-name" })).apiId);
    }
    expect(new Set(ids).size).toBe(ALL_VIAS.length);
    expect([...ids].sort()).toEqual(ids);
    for (const apiId of ids) expect(await stored(apiId)).toMatchObject({ name: "same-name" });
  });

  it("accepts names of 3 to 256 characters of any kind, as Unkey does", async () => {
    for (const apiName of ["abc", `a${"b".repeat(255)}`, "A1.b-c_d", "Payment Service (prod)", "1abc", "café"]) {
      for (const name of ALL_VIAS) {
        const { apiId } = await via(name).ok("apis.createApi", { name: apiName });
        expect((await stored(apiId))?.name).toBe(apiName);
      }
    }
  });

  it("works with a root key holding only api.*.create_api", async () => {
    const { key } = await harness.seed.rootKey(["api.*.create_api"]);
    for (const name of ALL_VIAS) {
      const { apiId } = await via(name).ok("apis.createApi", { name: "narrow" }, key);
      expect(await stored(apiId)).toMatchObject({ name: "narrow", workspaceId: harness.keyward.workspaceId });
    }
  });
});
