import { describe, expect, it } from "vitest";
import { RPC_VIAS } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, viaClient, type ViaClient } from "../../support/vias.js";

describe("identities.listIdentities", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("answers an empty workspace with no items and no cursor in every dialect", async () => {
    const other = await harness.seed.workspace("empty-identities");
    const v2 = await harness.rest.v2("identities.listIdentities", {}, other.rootKey.key);
    expect(v2.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: [], pagination: { hasMore: false } });
    const v1 = await harness.rest.v1Get("identities.listIdentities", {}, other.rootKey.key);
    expect(v1.body).toEqual({ identities: [], total: 0 });
    for (const name of RPC_VIAS) {
      const message = await via(name, other.rootKey.key).ok("identities.listIdentities", {});
      expect({ data: message.data, total: message.total, hasMore: message.pagination.hasMore, cursor: message.pagination.cursor })
        .toEqual({ data: [], total: 0n, hasMore: false, cursor: undefined });
    }
  });

  it("pages 250 identities by 100: each exactly once, in creation order, over v2, v1, Connect, gRPC and gRPC-Web", async () => {
    const expected: string[] = [];
    for (let i = 0; i < 250; i++) {
      harness.clock.advance(1); // ids sort by creation time
      const externalId = `page_${String(i).padStart(3, "0")}`;
      await via("v2").ok("identities.createIdentity", { externalId, ...(i === 7 ? { meta: { n: 7 }, ratelimits: [{ name: "rps", limit: 1, duration: 1000 }] } : {}) });
      expected.push(externalId);
    }
    const { workspaceId } = harness.keyward;
    expect(await harness.keyward.documents.identities.count(workspaceId)).toBe(250);

    // v2: {data, pagination:{cursor, hasMore}}, the cursor only while more pages exist.
    const v2Pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const response = await harness.rest.v2("identities.listIdentities", { limit: 100, ...(cursor ? { cursor } : {}) }, harness.keyward.rootKey);
      expect(response.status).toBe(200);
      v2Pages.push(response.body.data.map((i: { externalId: string }) => i.externalId));
      cursor = response.body.pagination.cursor;
      expect(response.body.pagination.hasMore).toBe(cursor !== undefined);
    } while (cursor);
    expect(v2Pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(v2Pages.flat()).toEqual(expected);

    // v1: {identities, cursor?, total}.
    const v1Pages: string[][] = [];
    cursor = undefined;
    do {
      const response = await harness.rest.v1Get("identities.listIdentities", { limit: 100, ...(cursor ? { cursor } : {}) }, harness.keyward.rootKey);
      expect(response.status).toBe(200);
      expect(response.body.total).toBe(250);
      v1Pages.push(response.body.identities.map((i: { externalId: string }) => i.externalId));
      cursor = response.body.cursor;
    } while (cursor);
    expect(v1Pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(v1Pages.flat()).toEqual(expected);

    for (const name of RPC_VIAS) {
      const seen: string[] = [];
      let rpcCursor: string | undefined;
      do {
        const message = await via(name).ok("identities.listIdentities", { limit: 100, ...(rpcCursor ? { cursor: rpcCursor } : {}) });
        expect(message.total).toBe(250n);
        seen.push(...message.data.map((i: { externalId: string }) => i.externalId));
        rpcCursor = message.pagination.cursor;
      } while (rpcCursor);
      expect(seen).toEqual(expected);
    }
  });

  it("lists each identity in its dialect's shape and defaults to 100 per page", async () => {
    const v2 = await harness.rest.v2("identities.listIdentities", {}, harness.keyward.rootKey);
    expect(v2.body.data).toHaveLength(100);
    expect(v2.body.data[7]).toEqual({
      id: expect.stringMatching(/^id_/), externalId: "page_007", meta: { n: 7 },
      ratelimits: [{ id: expect.stringMatching(/^rl_/), name: "rps", limit: 1, duration: 1000, autoApply: false }],
    });
    expect(v2.body.data[8]).toEqual({ id: expect.stringMatching(/^id_/), externalId: "page_008", meta: {}, ratelimits: [] });
    const v1 = await harness.rest.v1Get("identities.listIdentities", { limit: 10 }, harness.keyward.rootKey);
    expect(v1.body.identities[7]).toEqual({ id: v2.body.data[7].id, externalId: "page_007", meta: { n: 7 }, ratelimits: [{ name: "rps", limit: 1, duration: 1000 }] });
    expect(Object.keys(v1.body).sort()).toEqual(["cursor", "identities", "total"]);
  });

  it("leaves deleted identities and other workspaces' identities out, of the items and of the total", async () => {
    const other = await harness.seed.workspace("list-other");
    await via("v2", other.rootKey.key).ok("identities.createIdentity", { externalId: "elsewhere" });
    await via("v2").ok("identities.deleteIdentity", { identity: "page_000" });
    const v1 = await harness.rest.v1Get("identities.listIdentities", { limit: 100 }, harness.keyward.rootKey);
    expect(v1.body.total).toBe(249);
    expect(v1.body.identities[0].externalId).toBe("page_001");
    const theirs = await harness.rest.v1Get("identities.listIdentities", {}, other.rootKey.key);
    expect(theirs.body).toEqual({ identities: [expect.objectContaining({ externalId: "elsewhere" })], total: 1 });
  });
  it("v2 search narrows the list to ids or external ids containing the text, ignoring case, and pages through the matches", async () => {
    const other = await harness.seed.workspace("search-identities");
    const client = via("v2", other.rootKey.key);
    const made: Record<string, string> = {};
    for (const externalId of ["Acme.Admin", "acme-billing", "globex", "ACME_ops", "initech"]) {
      harness.clock.advance(1);
      made[externalId] = (await client.ok("identities.createIdentity", { externalId })).identityId;
    }
    const first = await harness.rest.v2("identities.listIdentities", { search: "acme", limit: 2 }, other.rootKey.key);
    expect(first.body.data.map((i: { externalId: string }) => i.externalId)).toEqual(["Acme.Admin", "acme-billing"]);
    expect(first.body.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const second = await harness.rest.v2("identities.listIdentities", { search: "acme", limit: 2, cursor: first.body.pagination.cursor }, other.rootKey.key);
    expect(second.body).toMatchObject({ data: [expect.objectContaining({ externalId: "ACME_ops" })], pagination: { hasMore: false } });
    expect((await client.ok("identities.listIdentities", { search: made.globex })).map((i: { externalId: string }) => i.externalId)).toEqual(["globex"]);
    for (const name of RPC_VIAS) {
      const message = await via(name, other.rootKey.key).ok("identities.listIdentities", { search: "ACME" });
      expect({ found: message.data.length, total: message.total }).toEqual({ found: 3, total: 3n });
    }
  });

  it("takes an empty search as no filter and a search of up to 256 characters, as Unkey v2 (F19)", async () => {
    const other = await harness.seed.workspace("search-bounds");
    for (const externalId of ["alpha", "beta"]) {
      harness.clock.advance(1); // ids sort by creation time
      await via("v2", other.rootKey.key).ok("identities.createIdentity", { externalId });
    }
    const all = await harness.rest.v2("identities.listIdentities", { search: "" }, other.rootKey.key);
    expect(all.status).toBe(200);
    expect(all.body.data.map((i: { externalId: string }) => i.externalId)).toEqual(["alpha", "beta"]);
    const long = await harness.rest.v2("identities.listIdentities", { search: "a".repeat(256) }, other.rootKey.key);
    expect({ status: long.status, data: long.body.data }).toEqual({ status: 200, data: [] });
  });
});
