import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../../../src/app.js";
import { bootstrap } from "../../../src/bootstrap.js";
import type { Clock } from "../../../src/domain/clock.js";
import { openStores, type Stores } from "../../../src/open-stores.js";
import { listen } from "../../../src/transport/server.js";
import { dataOf } from "../../support/key-state.js";
import { manualClock, startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { mongo, withDatabase } from "../../support/mongo.js";
import type { Via } from "../../support/operations.js";
import { recordSecret } from "../../support/secret-record.js";
import { testLogger } from "../../support/test-logger.js";
import { ALL_VIAS, connect, grpc, restV2, viaClient } from "../../support/vias.js";

/** One Keyward on `stores` (opened by the caller), with the bootstrap root key `rootKey`. */
async function serve(stores: Stores, clock: Clock, rootKey: string) {
  await bootstrap({ documents: stores.documents, clock, randomBytes: (n) => new Uint8Array(randomBytes(n)), rootKey, print: () => {} });
  const app = createApp({ ...stores, clock, logger: testLogger().logger });
  const server = await listen(app, { port: 0, host: "127.0.0.1" });
  return { baseUrl: `http://127.0.0.1:${server.port}`, stores, stop: async () => { await server.close(); await app.stop(); await stores.close(); } };
}

async function seedKey(baseUrl: string, rootKey: string, name: string) {
  const v2 = viaClient(baseUrl, restV2, rootKey);
  const { apiId } = await v2.ok("apis.createApi", { name });
  const { keyId, key } = await v2.ok("keys.createKey", { apiId });
  recordSecret(key);
  return { apiId, keyId, key };
}

async function verify(baseUrl: string, rootKey: string, via: Via, key: string): Promise<string> {
  return dataOf("keys.verifyKey", await viaClient(baseUrl, via, rootKey).call("keys.verifyKey", { key })).code;
}

async function lastUsedAt(baseUrl: string, rootKey: string, via: Via, keyId: string): Promise<number | undefined> {
  return dataOf("keys.getKey", await viaClient(baseUrl, via, rootKey).call("keys.getKey", { keyId })).lastUsedAt;
}

describe("lastUsedAt across a restart of an embedded server", () => {
  it("a verification written before a graceful stop shows on every transport after the restart on the same data directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-lastused-"));
    const rootKey = `kw_test_${randomBytes(12).toString("hex")}`;
    recordSecret(rootKey);
    const clock = manualClock(Date.UTC(2030, 0, 1));
    try {
      const first = await serve(await openStores({ dataDir: dir }), clock, rootKey);
      const k = await seedKey(first.baseUrl, rootKey, "restart");
      clock.advance(1000);
      const verifiedAt = clock.now();
      expect(await verify(first.baseUrl, rootKey, grpc, k.key)).toBe("VALID");
      // No flush by the test: the stop writes what is buffered, as SIGTERM's graceful stop does.
      await first.stop();
      clock.advance(60_000);
      const second = await serve(await openStores({ dataDir: dir }), clock, rootKey);
      try {
        for (const via of ALL_VIAS) expect([via, await lastUsedAt(second.baseUrl, rootKey, via, k.keyId)]).toEqual([via, verifiedAt]);
        const never = await seedKey(second.baseUrl, rootKey, "after-restart");
        expect(await lastUsedAt(second.baseUrl, rootKey, restV2, never.keyId)).toBeUndefined();
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Two instances, each with its own MongoDB client and event store, on one database (and one Redis for counters).
(mongo.url ? describe : describe.skip)(`lastUsedAt across two instances on one MongoDB${mongo.skip}`, () => {
  const clock = manualClock(Date.UTC(2030, 0, 1));
  let a: RunningKeyward;
  let b: Awaited<ReturnType<typeof serve>>;
  let dir: string;
  beforeAll(async () => {
    const url = withDatabase(mongo.url!, `kw_lastused_${randomBytes(6).toString("hex")}`);
    a = await startKeyward({ clock, mongodbUrl: url, redisUrl: inject("redisUrl") });
    dir = await mkdtemp(join(tmpdir(), "keyward-lastused-b-"));
    b = await serve(await openStores({ dataDir: dir, mongodbUrl: url, redisUrl: inject("redisUrl") }), clock, a.rootKey);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a verification through A shows in getKey through B on every transport once A has written its events, and back", async () => {
    const k = await seedKey(a.baseUrl, a.rootKey, "shared");
    expect(await lastUsedAt(b.baseUrl, a.rootKey, restV2, k.keyId)).toBeUndefined();
    clock.advance(1000);
    const throughA = clock.now();
    expect(await verify(a.baseUrl, a.rootKey, restV2, k.key)).toBe("VALID");
    await a.stores.events.flush();
    for (const via of ALL_VIAS) expect([via, await lastUsedAt(b.baseUrl, a.rootKey, via, k.keyId)]).toEqual([via, throughA]);
    clock.advance(1000);
    const throughB = clock.now();
    expect(await verify(b.baseUrl, a.rootKey, connect, k.key)).toBe("VALID");
    await b.stores.events.flush();
    expect(await lastUsedAt(a.baseUrl, a.rootKey, grpc, k.keyId)).toBe(throughB);
    // A flushing an earlier time afterwards (a late batch) never moves it back.
    clock.set(throughA - 500);
    expect(await verify(a.baseUrl, a.rootKey, grpc, k.key)).toBe("VALID");
    await a.stores.events.flush();
    clock.set(throughB);
    expect(await lastUsedAt(b.baseUrl, a.rootKey, restV2, k.keyId)).toBe(throughB);
  });

  it("without any explicit flush, B sees A's verification within the flush interval (about 1 s; documented bound 60 s)", async () => {
    const k = await seedKey(a.baseUrl, a.rootKey, "timer");
    clock.advance(1000);
    const verifiedAt = clock.now();
    const started = Date.now();
    expect(await verify(a.baseUrl, a.rootKey, grpc, k.key)).toBe("VALID");
    let seen: number | undefined;
    while (seen === undefined && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await lastUsedAt(b.baseUrl, a.rootKey, connect, k.keyId);
    }
    expect(seen).toBe(verifiedAt);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
