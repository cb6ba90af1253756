import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { connect, grpc, REQUEST_ID, restV2, viaClient } from "../../support/vias.js";

/** Unkey's legacy listing, GET /v1/apis/{apiId}/keys: offset paging, answered as {keys, total}. */
describe("legacy GET /v1/apis/{apiId}/keys", () => {
  const harness = useKeyward();
  const legacy = (apiId: string, query: Record<string, string | number> = {}, rootKey: string | null = harness.keyward.rootKey) =>
    harness.rest.raw(`/v1/apis/${encodeURIComponent(apiId)}/keys?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, {
      headers: rootKey === null ? {} : { authorization: `Bearer ${rootKey}` },
    });
  const v1Error = (code: string, message: string) => ({
    error: { code, message: expect.stringContaining(message), docs: `https://keyward.dev/docs/api-reference/errors/code/${code}`, requestId: expect.stringMatching(REQUEST_ID) },
  });

  /** 25 keys a millisecond apart (ids sort by creation), one with a ratelimit, owner and balance; one key elsewhere. */
  async function twentyFiveKeys() {
    const apiId = await harness.seed.api({ name: "legacy-25" });
    await harness.seed.key(await harness.seed.api({ name: "elsewhere" }));
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      harness.clock.advance(1);
      const fields = i === 0
        ? { name: "first", externalId: "owner-1", meta: { plan: "pro" }, credits: { remaining: 7 }, expires: harness.clock.now() + 60_000,
            ratelimits: [{ name: "default", limit: 10, duration: 1000, autoApply: true }] }
        : { name: `k${i}` };
      ids.push((await harness.seed.key(apiId, fields)).keyId);
    }
    return { apiId, ids };
  }

  it("pages 25 keys by 10 with offset 0, 10, 20 as 10, 10, 5, each key once and in order, total 25 on every page", async () => {
    const { apiId, ids } = await twentyFiveKeys();
    const seen: string[] = [];
    for (const [offset, size] of [[0, 10], [10, 10], [20, 5]]) {
      const page = await legacy(apiId, { limit: 10, offset });
      expect({ status: page.status, keys: page.body.keys.length, total: page.body.total, fields: Object.keys(page.body).sort() })
        .toEqual({ status: 200, keys: size, total: 25, fields: ["keys", "total"] });
      seen.push(...page.body.keys.map((k: { id: string }) => k.id));
    }
    expect(seen).toEqual(ids);
    // Past the end: no keys, the total still told.
    expect((await legacy(apiId, { limit: 10, offset: 30 })).body).toEqual({ keys: [], total: 25 });
    // No limit: Unkey's default of 100, so all 25.
    expect((await legacy(apiId)).body.keys.map((k: { id: string }) => k.id)).toEqual(ids);
  });

  it("the offset is the RPC's too (and v2's): Connect, gRPC and REST v2 skip 20 of 25, and refuse it with a cursor", async () => {
    const { apiId, ids } = await twentyFiveKeys();
    for (const name of [connect, grpc, restV2]) {
      const client = viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
      const page = await client.ok("apis.listKeys", { apiId, limit: 10, offset: 20 });
      const keys = (name === restV2 ? page : page.data) as { keyId: string }[];
      expect(keys.map((k) => k.keyId)).toEqual(ids.slice(20));
      await client.fails("apis.listKeys", { apiId, offset: 1, cursor: "a2V5XzE" }, "invalid", { detail: "offset" });
    }
  });

  it("lists each key in the legacy shape, the default limit also as refillRate per refillInterval", async () => {
    const { apiId, ids } = await twentyFiveKeys();
    const page = await legacy(apiId, { limit: 2 });
    expect(page.body.keys[0]).toEqual({
      id: ids[0], start: expect.any(String), apiId, workspaceId: harness.keyward.workspaceId, name: "first", ownerId: "owner-1",
      meta: { plan: "pro" }, createdAt: expect.any(Number), expires: expect.any(Number), remaining: 7,
      ratelimit: { async: false, limit: 10, duration: 1000, refillRate: 10, refillInterval: 1000 },
    });
    expect(page.body.keys[1]).toEqual({ id: ids[1], start: expect.any(String), apiId, workspaceId: harness.keyward.workspaceId, name: "k1", createdAt: expect.any(Number) });
  });

  it("filters by ownerId, the total counting only that owner's keys", async () => {
    const { apiId, ids } = await twentyFiveKeys();
    expect((await legacy(apiId, { ownerId: "owner-1" })).body).toMatchObject({ keys: [{ id: ids[0] }], total: 1 });
    expect((await legacy(apiId, { ownerId: "nobody" })).body).toEqual({ keys: [], total: 0 });
  });

  it("answers 400 naming the parameter to a bad limit or offset, or an offset with a cursor", async () => {
    const apiId = await harness.seed.api({ name: "legacy-400" });
    for (const [query, field] of [
      [{ limit: 0 }, "limit"], [{ limit: 101 }, "limit"], [{ limit: "ten" }, "limit"],
      [{ offset: -1 }, "offset"], [{ offset: "x" }, "offset"], [{ offset: 100001 }, "offset"], [{ offset: 1, cursor: "a2V5XzE" }, "offset"],
    ] as const) {
      const answer = await legacy(apiId, query as Record<string, string | number>);
      expect({ query, status: answer.status, body: answer.body }).toEqual({ query, status: 400, body: v1Error("BAD_REQUEST", field) });
    }
  });

  it("answers 401 without a root key or with an unknown one", async () => {
    const apiId = await harness.seed.api({ name: "legacy-401" });
    const missing = await legacy(apiId, {}, null);
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 401, body: v1Error("UNAUTHORIZED", "Authorization header is missing") });
    const unknown = await legacy(apiId, {}, "kw_root_3yZe7d6kFkMnLtBk1oGpTqG1x5Ws");
    expect(unknown.status).toBe(401);
  });

  it("answers 403 naming api.*.read_key to a root key without it (even with every other permission)", async () => {
    const apiId = await harness.seed.api({ name: "legacy-403" });
    const { key } = await harness.seed.rootKeyWithout("api.*.read_key");
    const answer = await legacy(apiId, {}, key);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 403, body: v1Error("INSUFFICIENT_PERMISSIONS", "api.*.read_key") });
    const { key: scoped } = await harness.seed.rootKey([`api.${apiId}.read_key`]);
    expect((await legacy(apiId, {}, scoped)).body).toEqual({ keys: [], total: 0 });
  });

  it("answers 404 for an unknown api and for an api of another workspace", async () => {
    const apiId = await harness.seed.api({ name: "legacy-404" });
    await harness.seed.key(apiId);
    const other = await harness.seed.workspace("legacy-404-other");
    const foreign = await legacy(apiId, {}, other.rootKey.key);
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: v1Error("NOT_FOUND", apiId) });
    const unknown = await legacy("api_1111111111111111111111");
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: v1Error("NOT_FOUND", "api_1111111111111111111111") });
  });

  it("answers 405 to POST on the legacy path, and the exact-path routes stay as they were", async () => {
    const apiId = await harness.seed.api({ name: "legacy-405" });
    const post = await harness.rest.raw(`/v1/apis/${apiId}/keys`, { method: "POST", headers: { authorization: `Bearer ${harness.keyward.rootKey}` }, body: "{}" });
    expect({ status: post.status, allow: post.headers.get("allow") }).toEqual({ status: 405, allow: "GET" });
    expect((await harness.rest.v1Get("apis.listKeys", { apiId }, harness.keyward.rootKey)).body).toEqual({ keys: [], total: 0 });
    expect((await harness.rest.raw(`/v1/apis/${apiId}/keys/extra`)).status).toBe(404);
  });
});
