import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.js";
import type { WebhookSettings } from "../../src/config.js";
import type { Clock } from "../../src/domain/clock.js";
import { openStores, type Stores } from "../../src/open-stores.js";
import { listen } from "../../src/transport/server.js";
import { afterAll, beforeAll, inject } from "vitest";
import { startKeyward, type RunningKeyward } from "./keyward.js";
import { testLogger } from "./test-logger.js";

export interface SecondInstance {
  baseUrl: string;
  port: number;
  /** Its own counters, invalidation bus and events (the documents are the first instance's). */
  stores: Stores;
  stop(): Promise<void>;
}

/**
 * Starts another Keyward instance in this process, as a second replica behind a load balancer would run: the same
 * DocumentStore object as `first`, its own key cache, and its own Redis connection for counters and cache
 * invalidation (so `first` must have been started with the same `redisUrl`). The first instance's root key works here.
 * `encryptionKey` and `webhooks`: as `first` was given them (a webhook message may be signed and sent by either one).
 */
export async function startSecondInstance(first: RunningKeyward, options: { redisUrl: string; clock?: Clock; encryptionKey?: Buffer; webhooks?: Partial<WebhookSettings> }): Promise<SecondInstance> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-second-"));
  // openStores also opens an embedded document store in `dir`; it stays unused, the shared one serves instead.
  const stores = await openStores({ dataDir: dir, redisUrl: options.redisUrl });
  const app = createApp({
    ...stores, documents: first.documents, auditLogs: first.stores.auditLogs, clock: options.clock, logger: testLogger().logger,
    encryptionKey: options.encryptionKey, webhooks: options.webhooks,
  });
  const server = await listen(app, { port: 0, host: "127.0.0.1" });
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    port: server.port,
    stores,
    async stop() {
      await server.close();
      await app.stop();
      await stores.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Two replicas for one suite: A (`startKeyward`) and B (`startSecondInstance`) on the run's Redis and `clock`, started
 * before the suite's tests and stopped after them. Read `a` and `b` inside tests and hooks registered after this.
 */
export function useTwoInstances(clock: Clock): { a: RunningKeyward; b: SecondInstance } {
  const pair = {} as { a: RunningKeyward; b: SecondInstance };
  beforeAll(async () => {
    pair.a = await startKeyward({ clock, redisUrl: inject("redisUrl") });
    pair.b = await startSecondInstance(pair.a, { redisUrl: inject("redisUrl"), clock });
  });
  afterAll(async () => {
    await pair.b?.stop();
    await pair.a?.stop();
  });
  return pair;
}
