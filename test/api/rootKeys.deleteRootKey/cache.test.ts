import { describe, expect, it } from "vitest";
import { hashKey } from "../../../src/domain/key-material.js";
import { manualClock } from "../../support/keyward.js";
import { useTwoInstances } from "../../support/second-instance.js";

/** Authentication caches live root keys by hash; these show what clears that cache and what bounds it. */
describe("rootKeys.deleteRootKey and the root-key cache", () => {
  // A frozen clock: the cache's TTL never expires an entry unless a test moves time.
  const clock = manualClock(Date.UTC(2030, 0, 1));
  const pair = useTwoInstances(clock);

  const call = async (baseUrl: string, rootKey: string, operation: string, body: object) => {
    const res = await fetch(`${baseUrl}/v2/${operation}`, {
      method: "POST",
      headers: { authorization: `Bearer ${rootKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>; error?: { detail: string } } };
  };

  async function rootKeyUsedOn(baseUrl: string) {
    const created = await call(pair.a.baseUrl, pair.a.rootKey, "rootKeys.createRootKey", { name: "cached", permissions: ["api.*.read_api", "api.*.create_api"] });
    expect(created.status).toBe(200);
    const { keyId, key } = created.body.data as { keyId: string; key: string };
    const apiId = (await call(baseUrl, key, "apis.createApi", { name: "by-cached-key" })).body.data!.apiId as string;
    expect((await call(baseUrl, key, "apis.getApi", { apiId })).status).toBe(200);
    return { keyId, key, apiId };
  }

  /** Calls on B until it answers `status`; the bound only stops a test that would never pass. */
  async function eventuallyOnB(key: string, apiId: string, status: number): Promise<void> {
    const started = Date.now();
    let last = 0;
    while (Date.now() - started < 10_000) {
      last = (await call(pair.b.baseUrl, key, "apis.getApi", { apiId })).status;
      if (last === status) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`instance B still answered ${last}, not ${status}`);
  }

  it("a root key revoked on A answers 401 on A at once and on B once told through Redis", async () => {
    const { keyId, key, apiId } = await rootKeyUsedOn(pair.b.baseUrl);
    expect((await call(pair.a.baseUrl, pair.a.rootKey, "rootKeys.deleteRootKey", { keyId })).status).toBe(200);
    const onA = await call(pair.a.baseUrl, key, "apis.getApi", { apiId });
    expect(onA.status).toBe(401);
    expect(onA.body.error!.detail).toBe("The root key is unknown or revoked.");
    await eventuallyOnB(key, apiId, 401);
    // The bootstrap key, cached on both, is untouched.
    expect((await call(pair.b.baseUrl, pair.a.rootKey, "apis.getApi", { apiId })).status).toBe(200);
  });

  it("a revocation written to the store alone (no instance told) holds once the cache's 10 s TTL passes", async () => {
    const { keyId, key, apiId } = await rootKeyUsedOn(pair.a.baseUrl);
    expect(await pair.a.documents.rootKeys.markDeleted(pair.a.workspaceId, keyId, clock.now())).toBe(true);
    expect((await call(pair.a.baseUrl, key, "apis.getApi", { apiId })).status).toBe(200); // served from the cache
    clock.advance(9_999);
    expect((await call(pair.a.baseUrl, key, "apis.getApi", { apiId })).status).toBe(200);
    clock.advance(1);
    expect((await call(pair.a.baseUrl, key, "apis.getApi", { apiId })).status).toBe(401);
    expect(await pair.a.documents.rootKeys.findByHash(hashKey(key))).toMatchObject({ id: keyId, deletedAt: expect.any(Number) });
  });

  it("a cached root key past its expiry answers 401 without any invalidation", async () => {
    const expiresAt = clock.now() + 5_000;
    const record = await pair.a.documents.rootKeys.findByHash(hashKey(pair.a.rootKey));
    const key = `kw_cache_test_${expiresAt}`;
    await pair.a.documents.rootKeys.insert({
      ...record!, id: `${record!.id}x`, name: "expiring", hash: hashKey(key), start: key.slice(0, 8), expiresAt, createdAt: clock.now(),
    });
    const apiId = (await call(pair.a.baseUrl, key, "apis.createApi", { name: "by-expiring-key" })).body.data!.apiId as string;
    expect((await call(pair.a.baseUrl, key, "apis.getApi", { apiId })).status).toBe(200);
    clock.advance(5_000);
    const refused = await call(pair.a.baseUrl, key, "apis.getApi", { apiId });
    expect(refused.status).toBe(401);
    expect(refused.body.error!.detail).toBe("The root key has expired.");
  });
});
