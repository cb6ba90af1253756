import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { connect, expectEmptyKeyList, grpc, grpcWeb, restV1, restV2, viaClient } from "../../support/vias.js";

describe("apis.deleteApi", () => {
  const harness = useKeyward();

  it("runs the api lifecycle on every transport: create, get, list no keys, delete, then 404 for get, list and a second delete", async () => {
    for (const via of [restV1, restV2, connect, grpc, grpcWeb]) {
      const client = viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey);
      const name = `lifecycle-${via}`;
      const { apiId } = await client.ok("apis.createApi", { name });

      const api = await client.ok("apis.getApi", { apiId });
      expect({ id: api.id, name: api.name }).toEqual({ id: apiId, name });
      if (via === restV1) expect(api.workspaceId).toBe(harness.keyward.workspaceId);

      expectEmptyKeyList(await client.call("apis.listKeys", { apiId }));

      const deleted = await client.ok("apis.deleteApi", { apiId });
      if (via === restV1 || via === restV2) expect(deleted).toEqual({});
      else expect(Object.keys(deleted).filter((k) => k !== "$typeName")).toEqual([]);
      expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();

      await client.fails("apis.getApi", { apiId }, "not_found", { detail: `The api ${apiId} does not exist.` });
      await client.fails("apis.listKeys", { apiId }, "not_found", { detail: apiId });
      harness.writes.clear();
      await client.fails("apis.deleteApi", { apiId }, "not_found", { detail: apiId });
      expect(harness.writes.writes).toEqual([]);
    }
  });

  it("answers v2 with exactly {meta:{requestId}, data:{}} and v1 with exactly {}", async () => {
    const first = await harness.seed.api({ name: "shape-v2" });
    const v2 = await harness.rest.v2("apis.deleteApi", { apiId: first }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({ meta: { requestId: v2.headers.get("x-request-id") }, data: {} });
    const second = await harness.seed.api({ name: "shape-v1" });
    const v1 = await harness.rest.v1Post("apis.deleteApi", { apiId: second }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({});
  });

  it("deletes only the named api: its siblings stay readable", async () => {
    const doomed = await harness.seed.api({ name: "doomed" });
    const sibling = await harness.seed.api({ name: "sibling" });
    harness.writes.clear();
    await viaClient(harness.keyward.baseUrl, grpc, harness.keyward.rootKey).ok("apis.deleteApi", { apiId: doomed });
    expect(harness.writes.writes).toEqual([{ call: "apis.markDeleted", id: doomed }]);
    expect((await viaClient(harness.keyward.baseUrl, restV2, harness.keyward.rootKey).ok("apis.getApi", { apiId: sibling })).name)
      .toBe("sibling");
  });

  it("works with a root key holding delete_api for exactly this api", async () => {
    for (const via of [restV1, restV2, connect, grpc, grpcWeb]) {
      const apiId = await harness.seed.api({ name: "scoped" });
      const { key } = await harness.seed.rootKey([`api.${apiId}.delete_api`]);
      expect(await viaClient(harness.keyward.baseUrl, via, key).ok("apis.deleteApi", { apiId })).toBeDefined();
      expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();
    }
  });
});
