import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.js";
import { trustedProxiesOf, type WebhookSettings } from "../../src/config.js";
import { bootstrap } from "../../src/bootstrap.js";
import type { Clock } from "../../src/domain/clock.js";
import { openStores, type Stores } from "../../src/open-stores.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import { listen, type ConnectionLimits, type ListeningServer, type TlsListenOptions } from "../../src/transport/server.js";
import type { MetricsAccess } from "../../src/observability/metrics-endpoint.js";
import type { Logger } from "../../src/observability/logger.js";
import { recordSecret } from "./secret-record.js";
import { testLogger } from "./test-logger.js";
import type { Operation } from "../../src/services/operation.js";
import { withDatabase } from "./mongo.js";

export interface RunningKeyward {
  baseUrl: string;
  port: number;
  /** The bootstrap root key: every permission in the default workspace. */
  rootKey: string;
  workspaceId: string;
  documents: DocumentStore;
  stores: Stores;
  /** The app's operation table: every RPC with its access rule and handler. */
  operations: Operation[];
  /** The background runner of queued imports (`idle()` waits for the queued ones). */
  migrations: { idle(): Promise<void> };
  /** The webhook engine (its index and loops). */
  webhooks: { started: Promise<void> };
  /** The listening server (its `setSecureContext` when started with `tls`). */
  server: ListeningServer;
  stop(): Promise<void>;
}

/** A settable clock for tests that move time instead of sleeping. */
export function manualClock(start = Date.now()): Clock & { set(ms: number): void; advance(ms: number): void } {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms), advance: (ms) => void (now += ms) };
}

/** Whether this is the end-to-end suite's run on MongoDB documents (vitest.mongo-e2e.config.ts). */
export const onMongoDocuments = (): boolean => process.env.KEYWARD_TEST_DOCUMENTS === "mongo";

/**
 * With KEYWARD_TEST_DOCUMENTS=mongo (the end-to-end suite's second run, vitest.mongo-e2e.config.ts), the URL of a
 * fresh database for one server on the test MongoDB (test/setup/mongo.ts); else undefined (embedded documents).
 */
function mongoDocumentsUrl(): string | undefined {
  if (!onMongoDocuments()) return undefined;
  const url = process.env.KEYWARD_TEST_MONGODB_URL;
  if (!url) throw new Error("KEYWARD_TEST_DOCUMENTS=mongo needs a MongoDB: MONGODB_URL or the emulator (test/setup/mongo.ts)");
  return withDatabase(url, `kw_e2e_${randomBytes(6).toString("hex")}`);
}

async function dropDatabase(url: string): Promise<void> {
  const { MongoClient } = await import("mongodb");
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.db().dropDatabase();
  } finally {
    await client.close();
  }
}

/**
 * Starts Keyward in this process on a free loopback port, on fresh embedded stores in a temp dir (documents in a
 * fresh MongoDB database under KEYWARD_TEST_DOCUMENTS=mongo, or at `mongodbUrl`; counters in Redis when `redisUrl`
 * is given), bootstrapped with a known root key. `stop()` closes the server and deletes the data. The server logs
 * every request to the run's log folder, and its root key and encryption key are recorded as secrets for the
 * end-of-run log check.
 */
export async function startKeyward(
  options: {
    clock?: Clock;
    encryptionKey?: Buffer;
    redisUrl?: string;
    mongodbUrl?: string;
    metricsAccess?: MetricsAccess;
    /** Instead of the run's log file (a test that reads the lines itself). */
    logger?: Logger;
    logSampleRate?: number;
    limits?: ConnectionLimits;
    /** Listen address; `::` serves IPv4 (as ::ffff:a.b.c.d) and IPv6 loopback clients alike. Default 127.0.0.1. */
    host?: string;
    /** KEYWARD_TRUSTED_PROXIES as the server reads it. */
    trustedProxies?: string;
    /** Serve TLS (baseUrl is then https://127.0.0.1:port). */
    tls?: TlsListenOptions;
    /** KEYWARD_IDEMPOTENCY_WINDOW_SECONDS in ms. */
    idempotencyWindowMs?: number;
    /** Webhook delivery settings (KEYWARD_WEBHOOKS_* as the server reads them). */
    webhooks?: Partial<WebhookSettings>;
  } = {},
): Promise<RunningKeyward> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-test-"));
  const mongodbUrl = options.mongodbUrl ?? mongoDocumentsUrl();
  const stores = await openStores({ dataDir: dir, redisUrl: options.redisUrl, mongodbUrl });
  const { documents } = stores;
  const clock = options.clock ?? { now: () => Date.now() };
  const rootKey = `kw_test_${randomBytes(12).toString("hex")}`;
  recordSecret(rootKey);
  if (options.encryptionKey) {
    recordSecret(options.encryptionKey.toString("base64"));
    recordSecret(options.encryptionKey.toString("hex"));
  }
  if (options.metricsAccess?.mode === "token") recordSecret(options.metricsAccess.token);
  const log = testLogger();
  await bootstrap({
    documents,
    clock,
    randomBytes: (size) => new Uint8Array(randomBytes(size)),
    rootKey,
    print: () => {},
  });
  const [workspace] = await documents.workspaces.list({ limit: 1 });
  const app = createApp({
    ...stores, clock, encryptionKey: options.encryptionKey, metricsAccess: options.metricsAccess,
    logger: options.logger ?? log.logger, logSampleRate: options.logSampleRate, trustedProxies: trustedProxiesOf(options.trustedProxies),
    idempotencyWindowMs: options.idempotencyWindowMs,
    webhooks: options.webhooks,
  });
  const server = await listen(app, { port: 0, host: options.host ?? "127.0.0.1", limits: options.limits, tls: options.tls });
  return {
    baseUrl: `${options.tls ? "https" : "http"}://127.0.0.1:${server.port}`,
    port: server.port,
    rootKey,
    workspaceId: workspace.id,
    documents,
    stores,
    operations: app.operations,
    migrations: app.migrations,
    webhooks: app.webhooks,
    server,
    async stop() {
      await server.close();
      await app.stop();
      await stores.close();
      log.flush();
      if (mongodbUrl) await dropDatabase(mongodbUrl);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
