import { describe, expect, it } from "vitest";
import { allPermissions } from "../../../src/domain/permissions.js";
import type { Outcome } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, V2_AND_RPC, viaClient, type ViaClient } from "../../support/vias.js";

interface Listed {
  keyId: string;
  name?: string;
  start: string;
  permissions: string[];
  createdAt: number;
  expires?: number;
}

/** One page in plain values whatever the transport: items, the cursor if any, hasMore. */
function pageOf(outcome: Outcome): { items: Listed[]; cursor?: string; hasMore: boolean } {
  if (outcome.via === "v2") {
    expect(outcome.rest.status).toBe(200);
    const { data, pagination } = outcome.rest.body;
    return { items: data, ...pagination };
  }
  if (outcome.via === "v1") throw new Error("rootKeys.listRootKeys has no v1 binding");
  if (!outcome.ok) throw new Error(`${outcome.via} call failed: ${outcome.error.message}`);
  const message = outcome.message as any;
  return {
    items: message.data.map((k: any) => ({
      keyId: k.keyId, start: k.start, permissions: k.permissions, createdAt: Number(k.createdAt),
      ...(k.name !== undefined && { name: k.name }), ...(k.expires !== undefined && { expires: Number(k.expires) }),
    })),
    ...(message.pagination.cursor !== undefined && { cursor: message.pagination.cursor }),
    hasMore: message.pagination.hasMore,
  };
}

async function listAll(client: ViaClient, limit: number): Promise<{ pages: ReturnType<typeof pageOf>[] }> {
  const pages: ReturnType<typeof pageOf>[] = [];
  let cursor: string | undefined;
  do {
    const page = pageOf(await client.call("rootKeys.listRootKeys", cursor === undefined ? { limit } : { limit, cursor }));
    pages.push(page);
    cursor = page.cursor;
    if (pages.length > 10) throw new Error("pagination does not end");
  } while (cursor !== undefined);
  return { pages };
}

describe("rootKeys.listRootKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number], rootKey: string) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("pages 8 keys by 3 as 3, 3, 2: every key once, in id order, the cursor absent on the last page, on every transport", async () => {
    for (const name of V2_AND_RPC) {
      // A fresh workspace per transport, so the listing holds exactly its first key plus the 7 made here.
      const ws = await harness.seed.workspace(`paging-${name}`);
      const client = via(name, ws.rootKey.key);
      const created = [ws.rootKey.keyId];
      for (let i = 0; i < 7; i++) {
        created.push((await client.ok("rootKeys.createRootKey", { name: `k${i}`, permissions: ["api.*.read_api"] })).keyId);
      }
      const { pages } = await listAll(client, 3);
      expect(pages.map((p) => p.items.length)).toEqual([3, 3, 2]);
      expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
      expect(pages.map((p) => typeof p.cursor)).toEqual(["string", "string", "undefined"]);
      const ids = pages.flatMap((p) => p.items.map((k) => k.keyId));
      expect(ids).toEqual([...created].sort());
      expect(new Set(ids).size).toBe(8);
      expect(ids).toContain(ws.rootKey.keyId);
    }
  });

  it("describes each key by id, name, start, permissions, createdAt and expires, never its secret", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`describe-${name}`);
      const client = via(name, ws.rootKey.key);
      // Ids sort by creation time: one millisecond later, the new key lists after the workspace's first one.
      harness.clock.advance(1);
      const expires = harness.clock.now() + 3_600_000;
      const made = await client.ok("rootKeys.createRootKey", { name: "described", permissions: ["api.*.read_api", "api.*.read_key"], expires });
      const { pages } = await listAll(client, 100);
      expect(pages).toHaveLength(1);
      const [first, second] = pages[0].items;
      expect(first).toEqual({
        keyId: ws.rootKey.keyId, start: ws.rootKey.key.slice(0, 12), permissions: allPermissions(), createdAt: expect.any(Number),
      });
      expect(second).toEqual({
        keyId: made.keyId, name: "described", start: made.key.slice(0, 12), permissions: ["api.*.read_api", "api.*.read_key"],
        createdAt: harness.clock.now(), expires,
      });
      expect(JSON.stringify(pages)).not.toContain(made.key);
      expect(JSON.stringify(pages)).not.toContain(ws.rootKey.key);
    }
  });

  it("answers v2 with {meta, data:[...], pagination:{hasMore}} and no cursor key when everything fits", async () => {
    const ws = await harness.seed.workspace("v2-shape");
    const response = await harness.rest.v2("rootKeys.listRootKeys", {}, ws.rootKey.key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: [{ keyId: ws.rootKey.keyId, start: ws.rootKey.key.slice(0, 12), permissions: allPermissions(), createdAt: harness.clock.now() }],
      pagination: { hasMore: false },
    });
    expect(Object.keys(response.body.pagination)).toEqual(["hasMore"]);
  });

  it("lists only the caller's workspace and leaves out deleted keys", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`scoped-${name}`);
      const client = via(name, ws.rootKey.key);
      const kept = await client.ok("rootKeys.createRootKey", { permissions: ["api.*.read_api"] });
      const dropped = await client.ok("rootKeys.createRootKey", { permissions: ["api.*.read_api"] });
      await client.ok("rootKeys.deleteRootKey", { keyId: dropped.keyId });
      const ids = (await listAll(client, 100)).pages.flatMap((p) => p.items.map((k) => k.keyId));
      expect(ids).toEqual([ws.rootKey.keyId, kept.keyId].sort());
      const home = (await listAll(via(name, harness.keyward.rootKey), 100)).pages.flatMap((p) => p.items.map((k) => k.keyId));
      expect(home).not.toContain(ws.rootKey.keyId);
      expect(home).not.toContain(kept.keyId);
    }
  });

  it("a cursor from one transport continues the same listing on another", async () => {
    const ws = await harness.seed.workspace("cross-transport");
    for (let i = 0; i < 3; i++) await via("v2", ws.rootKey.key).ok("rootKeys.createRootKey", { permissions: ["api.*.read_api"] });
    const first = pageOf(await via("v2", ws.rootKey.key).call("rootKeys.listRootKeys", { limit: 2 }));
    const rest = pageOf(await via("grpc", ws.rootKey.key).call("rootKeys.listRootKeys", { limit: 2, cursor: first.cursor }));
    expect([...first.items, ...rest.items].map((k) => k.keyId)).toEqual(
      (await listAll(via("connect", ws.rootKey.key), 100)).pages[0].items.map((k) => k.keyId),
    );
    expect(rest.hasMore).toBe(false);
    expect(rest.cursor).toBeUndefined();
  });
});
