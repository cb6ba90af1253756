import { describe, expect, it } from "vitest";
import { idsOf, listAll, pageOf } from "../../support/list-pages.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, V2_AND_RPC, viaClient } from "../../support/vias.js";

interface Listed {
  id: string;
  name: string;
  workspaceId: string;
  createdAt: number;
}

describe("apis.listApis", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number], rootKey: string) => viaClient(harness.keyward.baseUrl, name, rootKey);
  const names = (pages: { items: Listed[] }[]) => pages.flatMap((p) => p.items.map((a) => a.name));

  it("pages 8 apis by 3 as 3, 3, 2: every api once, in id order, the cursor absent on the last page, on every transport", async () => {
    for (const name of V2_AND_RPC) {
      // A fresh workspace per transport, so the listing holds exactly the 8 apis made here.
      const ws = await harness.seed.workspace(`paging-${name}`);
      const client = via(name, ws.rootKey.key);
      const created: string[] = [];
      for (let i = 0; i < 8; i++) created.push((await client.ok("apis.createApi", { name: `api-${name}-${i}` })).apiId);
      const pages = await listAll<Listed>(client, "apis.listApis", { limit: 3 });
      expect(pages.map((p) => p.items.length)).toEqual([3, 3, 2]);
      expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
      expect(pages.map((p) => typeof p.cursor)).toEqual(["string", "string", "undefined"]);
      expect(idsOf(pages)).toEqual([...created].sort());
      // Without a limit one page holds up to 100.
      const whole = await listAll<Listed>(client, "apis.listApis");
      expect(whole).toHaveLength(1);
      expect(idsOf(whole)).toEqual([...created].sort());
    }
  });

  it("describes each api by id, name, workspaceId and createdAt", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`describe-${name}`);
      const client = via(name, ws.rootKey.key);
      harness.clock.advance(1);
      const { apiId } = await client.ok("apis.createApi", { name: "described api", deleteProtection: true });
      const [page] = await listAll<Listed>(client, "apis.listApis");
      expect(page.items).toEqual([{ id: apiId, name: "described api", workspaceId: ws.workspaceId, createdAt: harness.clock.now() }]);
    }
  });

  it("answers v2 with {meta, data:[...], pagination:{hasMore}} and no cursor key when everything fits", async () => {
    const ws = await harness.seed.workspace("v2-shape");
    const apiId = await harness.seed.api({ name: "shape-api", by: ws.rootKey.key });
    const response = await harness.rest.v2("apis.listApis", {}, ws.rootKey.key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: [{ id: apiId, name: "shape-api", workspaceId: ws.workspaceId, createdAt: harness.clock.now() }],
      pagination: { hasMore: false },
    });
    expect(Object.keys(response.body.pagination)).toEqual(["hasMore"]);
    // An empty workspace lists nothing, in the same shape.
    const empty = await harness.seed.workspace("v2-empty");
    expect((await harness.rest.v2("apis.listApis", {}, empty.rootKey.key)).body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: [], pagination: { hasMore: false },
    });
  });

  it("search keeps the apis whose name contains the text, ignoring case and matched literally, paged within the matches", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`search-${name}`);
      const client = via(name, ws.rootKey.key);
      for (const apiName of ["Shop-Checkout", "globex", "shop_billing", "SHOP.admin", "initech", "user(shop)+1"]) {
        await client.ok("apis.createApi", { name: apiName });
      }
      const sorted = (await listAll<Listed>(client, "apis.listApis", { limit: 100 }))[0].items;
      const shops = sorted.filter((a) => a.name.toLowerCase().includes("shop")).map((a) => a.name);
      expect(shops).toHaveLength(4);
      expect(names(await listAll<Listed>(client, "apis.listApis", { search: "shop" }))).toEqual(shops);
      const paged = await listAll<Listed>(client, "apis.listApis", { search: "SHOP", limit: 3 });
      expect(paged.map((p) => p.items.length)).toEqual([3, 1]);
      expect(names(paged)).toEqual(shops);
      expect(names(await listAll<Listed>(client, "apis.listApis", { search: "." }))).toEqual(["SHOP.admin"]);
      expect(names(await listAll<Listed>(client, "apis.listApis", { search: "(shop)+" }))).toEqual(["user(shop)+1"]);
      expect(names(await listAll<Listed>(client, "apis.listApis", { search: "nothing" }))).toEqual([]);
      expect(names(await listAll<Listed>(client, "apis.listApis", { search: "x".repeat(256) }))).toEqual([]);
    }
  });

  it("lists only the caller's workspace and leaves out deleted apis", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`scoped-${name}`);
      const client = via(name, ws.rootKey.key);
      const kept = (await client.ok("apis.createApi", { name: "kept-api" })).apiId;
      const dropped = (await client.ok("apis.createApi", { name: "dropped-api" })).apiId;
      await client.ok("apis.deleteApi", { apiId: dropped });
      expect(idsOf(await listAll(client, "apis.listApis"))).toEqual([kept]);
      expect(idsOf(await listAll(client, "apis.listApis", { search: "dropped" }))).toEqual([]);
      // Another workspace (the bootstrap key's) never sees them.
      const home = idsOf(await listAll(via(name, harness.keyward.rootKey), "apis.listApis"));
      expect(home).not.toContain(kept);
      expect(home).not.toContain(dropped);
    }
  });

  it("a root key holding only per-api read_api grants lists exactly those live apis of its workspace, paged and searched", async () => {
    const ws = await harness.seed.workspace("granted");
    const admin = via("v2", ws.rootKey.key);
    const apis: string[] = [];
    for (let i = 0; i < 6; i++) apis.push((await admin.ok("apis.createApi", { name: `granted-${i}` })).apiId);
    await admin.ok("apis.deleteApi", { apiId: apis[5] });
    const foreign = await harness.seed.api({ name: "granted-foreign" });
    const { key } = await harness.seed.rootKey([
      `api.${apis[4]}.read_api`, `api.${apis[1]}.read_api`, `api.${apis[3]}.read_api`,
      `api.${apis[5]}.read_api`, // deleted
      `api.${foreign}.read_api`, // another workspace's
      `api.${apis[0]}.read_key`, "api.*.create_api", // other actions grant no listing
    ], { by: ws.rootKey.key });
    const expected = [apis[1], apis[3], apis[4]].sort();
    for (const name of V2_AND_RPC) {
      const client = via(name, key);
      const pages = await listAll<Listed>(client, "apis.listApis", { limit: 2 });
      expect(pages.map((p) => p.items.length)).toEqual([2, 1]);
      expect(idsOf(pages)).toEqual(expected);
      const one = await listAll<Listed>(client, "apis.listApis", { search: "GRANTED-3" });
      expect(idsOf(one)).toEqual([apis[3]]);
      expect(idsOf(await listAll(client, "apis.listApis", { search: "granted-0" }))).toEqual([]);
    }
  });

  it("a cursor from one transport continues the same listing on another", async () => {
    const ws = await harness.seed.workspace("cross-transport");
    for (let i = 0; i < 4; i++) await harness.seed.api({ name: `cross-${i}`, by: ws.rootKey.key });
    const first = pageOf<Listed>(await via("v2", ws.rootKey.key).call("apis.listApis", { limit: 2 }));
    const rest = pageOf<Listed>(await via("grpc", ws.rootKey.key).call("apis.listApis", { limit: 2, cursor: first.cursor }));
    expect([...first.items, ...rest.items].map((a) => a.id)).toEqual(idsOf(await listAll(via("connect", ws.rootKey.key), "apis.listApis")));
    expect(rest.hasMore).toBe(false);
    expect(rest.cursor).toBeUndefined();
  });
});
