import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import type { Via } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

type Page = { ids: string[]; cursor?: string; hasMore?: boolean; total?: number };

describe("apis.listKeys (with keys)", () => {
  const harness = useKeyward();
  const client = (name: Via) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  /** One page in a transport-neutral form: ids in order, the cursor, and what the dialect adds (hasMore, total). */
  async function page(name: Via, input: Record<string, unknown>): Promise<Page> {
    const outcome = await client(name).call("apis.listKeys", input);
    if (outcome.via === "v2") {
      expect(outcome.rest.status).toBe(200);
      const { data, pagination } = outcome.rest.body;
      return { ids: data.map((k: { keyId: string }) => k.keyId), cursor: pagination.cursor, hasMore: pagination.hasMore };
    }
    const data = dataOf("apis.listKeys", outcome);
    if (name === "v1") return { ids: data.keys.map((k: { id: string }) => k.id), cursor: data.cursor, total: data.total };
    return { ids: data.data.map((k: { keyId: string }) => k.keyId), cursor: data.pagination.cursor, hasMore: data.pagination.hasMore, total: data.total };
  }

  /** Seven keys created a millisecond apart (ids sort by creation time), plus one in another api. */
  async function sevenKeys() {
    const apiId = await harness.seed.api({ name: "seven" });
    const other = await harness.seed.api({ name: "elsewhere" });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      harness.clock.advance(1);
      ids.push((await harness.seed.key(apiId, { name: `k${i}` })).keyId);
    }
    await harness.seed.key(other, { name: "not-listed" });
    return { apiId, ids };
  }

  it("v2 pages 7 keys by 3 as 3, 3, 1: each key once and in order, the last page without a cursor", async () => {
    const { apiId, ids } = await sevenKeys();
    const first = await page("v2", { apiId, limit: 3 });
    expect(first).toEqual({ ids: ids.slice(0, 3), cursor: expect.any(String), hasMore: true });
    const second = await page("v2", { apiId, limit: 3, cursor: first.cursor });
    expect(second).toEqual({ ids: ids.slice(3, 6), cursor: expect.any(String), hasMore: true });
    const last = await harness.rest.v2("apis.listKeys", { apiId, limit: 3, cursor: second.cursor }, harness.keyward.rootKey);
    expect(last.body.data.map((k: { keyId: string }) => k.keyId)).toEqual(ids.slice(6));
    expect(last.body.pagination).toEqual({ hasMore: false });
    expect(Object.keys(last.body.pagination)).toEqual(["hasMore"]);
  });

  it("v1 and the RPC protocols page the same way, and total counts every key of the api", async () => {
    const { apiId, ids } = await sevenKeys();
    for (const name of ["v1", "connect", "grpc", "grpcWeb"] as const) {
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const p = await page(name, cursor ? { apiId, limit: 3, cursor } : { apiId, limit: 3 });
        expect({ name, total: p.total }).toEqual({ name, total: 7 });
        seen.push(...p.ids);
        sizes.push(p.ids.length);
        cursor = p.cursor;
      } while (cursor);
      expect({ name, sizes, seen }).toEqual({ name, sizes: [3, 3, 1], seen: ids });
    }
  });

  it("without a limit one page holds every key, with no cursor", async () => {
    const { apiId, ids } = await sevenKeys();
    expect(await page("v2", { apiId })).toEqual({ ids, hasMore: false });
    expect(await page("v1", { apiId })).toEqual({ ids, total: 7 });
  });

  it("v1 answers {keys, total} with each key in the v1 Key shape", async () => {
    const apiId = await harness.seed.api({ name: "v1-shape" });
    const { keyId, key } = await harness.seed.key(apiId, { name: "one", credits: { remaining: 4 }, externalId: "v1_lister" });
    const response = await harness.rest.v1Get("apis.listKeys", { apiId }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      keys: [{
        id: keyId, start: key.slice(0, 4), workspaceId: harness.keyward.workspaceId, apiId, name: "one", ownerId: "v1_lister",
        createdAt: harness.clock.now(), remaining: 4, roles: [], permissions: [], enabled: true,
        identity: { id: expect.stringMatching(/^id_/), externalId: "v1_lister", meta: {} },
      }],
      total: 1,
    });
  });

  it("filters by identity: v2 and RPC by externalId, v1 by ownerId or externalId; total counts the matches", async () => {
    const apiId = await harness.seed.api({ name: "filtered" });
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      harness.clock.advance(1);
      mine.push((await harness.seed.key(apiId, { externalId: "alice" })).keyId);
      await harness.seed.key(apiId, { externalId: "bob" });
    }
    await harness.seed.key(apiId);
    expect(await page("v2", { apiId, externalId: "alice" })).toEqual({ ids: mine, hasMore: false });
    expect(await page("v1", { apiId, ownerId: "alice" })).toEqual({ ids: mine, total: 3 });
    expect(await page("v1", { apiId, externalId: "alice" })).toEqual({ ids: mine, total: 3 });
    expect(await page("grpc", { apiId, externalId: "alice" })).toMatchObject({ ids: mine, total: 3 });
    const paged = await page("v1", { apiId, ownerId: "alice", limit: 2 });
    expect(paged).toEqual({ ids: mine.slice(0, 2), cursor: expect.any(String), total: 3 });
    expect(await page("v1", { apiId, ownerId: "alice", limit: 2, cursor: paged.cursor as string })).toEqual({ ids: mine.slice(2), total: 3 });
    expect(await page("v2", { apiId, externalId: "nobody" })).toEqual({ ids: [], hasMore: false });
    expect(await page("v1", { apiId, ownerId: "nobody" })).toEqual({ ids: [], total: 0 });
    expect(await page("v1", { apiId })).toMatchObject({ total: 7 });
  });

  it("v2 lists each key as KeyResponseData, the same as getKey", async () => {
    const apiId = await harness.seed.api({ name: "same-view" });
    const { keyId } = await harness.seed.key(apiId, {
      name: "viewed", meta: { x: 1 }, credits: { remaining: 2, refill: { interval: "daily", amount: 2 } },
      ratelimits: [{ name: "rps", limit: 1, duration: 1000 }],
    });
    const listed = dataOf("apis.listKeys", await client("v2").call("apis.listKeys", { apiId }));
    const got = dataOf("keys.getKey", await client("v2").call("keys.getKey", { keyId }));
    expect(listed).toEqual([got]);
  });
});
