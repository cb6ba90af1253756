import { describe, expect, it } from "vitest";
import { RPC_VIAS } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, viaClient, type ViaClient } from "../../support/vias.js";

describe("identities.deleteIdentity", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  const create = async (externalId: string) => (await via("v2").ok("identities.createIdentity", { externalId })).identityId as string;

  it("v2 deletes by identity id or external id and answers {meta, data:{}}; the identity is gone from get and list", async () => {
    for (const by of ["id", "externalId"] as const) {
      const externalId = `del_v2_${by}`;
      const id = await create(externalId);
      harness.writes.clear();
      const response = await harness.rest.v2("identities.deleteIdentity", { identity: by === "id" ? id : externalId }, harness.keyward.rootKey);
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: {} } });
      expect(harness.writes.writes).toEqual([{ call: "identities.markDeleted", id }]);
      await via("v2").fails("identities.getIdentity", { identity: id }, "not_found");
    }
    const listed = await via("v2").ok("identities.listIdentities", {});
    expect(listed).toEqual([]);
  });

  it("v1 deletes by identityId and answers {}", async () => {
    const id = await create("del_v1");
    const response = await harness.rest.v1Post("identities.deleteIdentity", { identityId: id }, harness.keyward.rootKey);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: {} });
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, id)).toBeUndefined();
  });

  it("Connect, gRPC and gRPC-Web delete, and the external id is free for a new identity", async () => {
    for (const name of RPC_VIAS) {
      const externalId = `del_${name}`;
      const id = await create(externalId);
      expect(await via(name).ok("identities.deleteIdentity", { identity: externalId })).toBeDefined();
      await via(name).fails("identities.deleteIdentity", { identity: id }, "not_found");
      const again = await create(externalId);
      expect(again).not.toBe(id);
    }
  });

  it("serves a root key holding delete_identity for exactly this identity", async () => {
    const id = await create("del_scoped");
    const { key } = await harness.seed.rootKey([`identity.${id}.delete_identity`]);
    await via("v1").ok("identities.deleteIdentity", { identityId: id }, key);
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, id)).toBeUndefined();
  });
});
