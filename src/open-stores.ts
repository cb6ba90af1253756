import { join } from "node:path";
import { DEFAULT_EVENTS_RETENTION_DAYS, type Config } from "./config.js";
import { createLocalInvalidationBus, type InvalidationBus } from "./store/invalidation-bus.js";
import type { AuditLogStore } from "./store/ports/audit.js";
import type { CounterStore } from "./store/ports/counters.js";
import type { DocumentStore } from "./store/ports/documents.js";
import type { VerificationEventStore } from "./store/ports/events.js";

/** Every backend the service runs on, chosen from the configuration. */
export interface Stores {
  documents: DocumentStore;
  counters: CounterStore;
  events: VerificationEventStore;
  /** Standalone rate-limit checks (ratelimit-events.ts), a second stream on the same kind of event store. */
  ratelimitEvents: VerificationEventStore;
  /** Set when the audit log is a store of its own (MongoDB); the embedded document store keeps it in its journal. */
  auditLogs?: AuditLogStore;
  bus: InvalidationBus;
  /** Readiness of what is configured beyond the documents (Redis). */
  ready: () => Promise<boolean>;
  describe: string;
  close(): Promise<void>;
}

/** Opens the document store the configuration names: MongoDB when MONGODB_URL is set, else the embedded store. */
export async function openDocumentStore(config: Pick<Config, "mongodbUrl" | "dataDir">): Promise<DocumentStore> {
  if (config.mongodbUrl) {
    const { createMongoDocumentStore } = await import("./store/mongo/documents.js");
    return createMongoDocumentStore({ url: config.mongodbUrl });
  }
  const { createEmbeddedDocumentStore } = await import("./store/embedded/documents.js");
  return createEmbeddedDocumentStore({ dir: config.dataDir });
}

/**
 * Documents in MongoDB or the embedded store; counters and cache invalidation in Redis or embedded; verification
 * events beside the documents. The embedded parts keep their data under KEYWARD_DATA_DIR.
 */
export async function openStores(
  config: Pick<Config, "mongodbUrl" | "dataDir" | "redisUrl"> & Partial<Pick<Config, "redisReplicaAcks" | "eventsRetentionDays">>,
): Promise<Stores> {
  const closers: (() => Promise<void>)[] = [];
  const retention = { maxAgeMs: (config.eventsRetentionDays ?? DEFAULT_EVENTS_RETENTION_DAYS) * 86_400_000 };
  try {
    const documents = await openDocumentStore(config);
    closers.push(() => documents.close());

    let events: VerificationEventStore;
    let ratelimitEvents: VerificationEventStore;
    let auditLogs: AuditLogStore | undefined;
    if (config.mongodbUrl) {
      // Events get a client of their own: their batches never queue behind document operations.
      const { MongoClient } = await import("mongodb");
      const { clientOptionsFor, databaseNameFor } = await import("./store/mongo/connection.js");
      const { createMongoEventStore } = await import("./store/mongo/events.js");
      const client = await new MongoClient(config.mongodbUrl, clientOptionsFor(config.mongodbUrl)).connect();
      closers.push(() => client.close());
      events = await createMongoEventStore({ db: client.db(databaseNameFor(config.mongodbUrl)), retention });
      ratelimitEvents = await createMongoEventStore({
        db: client.db(databaseNameFor(config.mongodbUrl)), retention, collections: { events: "ratelimit_events" },
      });
      const { createMongoAuditLogStore } = await import("./store/mongo/audit-logs.js");
      auditLogs = await createMongoAuditLogStore({ db: client.db(databaseNameFor(config.mongodbUrl)) });
      const opened = auditLogs;
      closers.push(() => opened.close());
    } else {
      const { createEmbeddedEventStore } = await import("./store/embedded/events.js");
      events = await createEmbeddedEventStore({ dir: config.dataDir, retention });
      ratelimitEvents = await createEmbeddedEventStore({ dir: join(config.dataDir, "ratelimits"), retention, trackLastUse: false });
    }
    closers.push(() => events.close(), () => ratelimitEvents.close());

    let counters: CounterStore;
    let bus: InvalidationBus;
    let ready = async () => true;
    if (config.redisUrl) {
      // Loaded only when configured, as the MongoDB adapter is: ioredis costs every other start some 100 ms.
      const { closeRedis, createRedisConnection, pingRedis } = await import("./store/redis/connection.js");
      const redis = await createRedisConnection({ url: config.redisUrl, name: "keyward" });
      closers.push(() => closeRedis(redis));
      const { createRedisCounterStore } = await import("./store/redis/counters.js");
      const { createRedisInvalidationBus } = await import("./store/redis/invalidation-bus.js");
      // WAIT's timeout stays below the 2 s command timeout, so a missing replica answers 503 rather than a timeout.
      const replicaAcks = config.redisReplicaAcks ? { replicas: config.redisReplicaAcks, timeoutMs: 500 } : undefined;
      counters = createRedisCounterStore({ redis, replicaAcks });
      bus = await createRedisInvalidationBus({ redis });
      ready = () => pingRedis(redis);
    } else {
      const { createEmbeddedCounterStore } = await import("./store/embedded/counters.js");
      counters = await createEmbeddedCounterStore({ dir: join(config.dataDir, "counters") });
      closers.push(() => counters.close());
      bus = createLocalInvalidationBus();
    }
    closers.push(() => bus.close());

    const describe = `${config.mongodbUrl ? "mongodb" : `embedded (${config.dataDir})`}${config.redisUrl ? " + redis" : ""}`;
    return { documents, counters, events, ratelimitEvents, auditLogs, bus, ready, describe, close: () => closeAll(closers) };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

async function closeAll(closers: (() => Promise<void>)[]) {
  for (const close of closers.reverse()) await close().catch(() => {});
}

/**
 * The audit log beside a document store opened on its own (the CLI): the embedded store's own, or a MongoDB one
 * over a client of its own. `close` closes what this opened.
 */
export async function openAuditLogs(
  config: Pick<Config, "mongodbUrl">,
  documents: DocumentStore,
): Promise<{ auditLogs: AuditLogStore; close(): Promise<void> }> {
  if (documents.auditLogs) return { auditLogs: documents.auditLogs, close: async () => {} };
  if (!config.mongodbUrl) throw new Error("the document store keeps no audit log");
  const { MongoClient } = await import("mongodb");
  const { clientOptionsFor, databaseNameFor } = await import("./store/mongo/connection.js");
  const { createMongoAuditLogStore } = await import("./store/mongo/audit-logs.js");
  const client = await new MongoClient(config.mongodbUrl, clientOptionsFor(config.mongodbUrl)).connect();
  try {
    const auditLogs = await createMongoAuditLogStore({ db: client.db(databaseNameFor(config.mongodbUrl)) });
    return { auditLogs, close: async () => { await auditLogs.close(); await client.close(); } };
  } catch (error) {
    await client.close();
    throw error;
  }
}
