import { join } from "node:path";
import type { Db } from "mongodb";
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
 * MongoDB documents over the process's one client (client.ts): `db` for the other MongoDB stores; `close` closes the
 * documents, then the client. The dynamic imports keep the driver unloaded when MONGODB_URL is unset.
 */
async function openMongo(url: string): Promise<{ documents: DocumentStore; db: Db; close(): Promise<void> }> {
  const { connectMongo } = await import("./store/mongo/client.js");
  const { databaseNameFor } = await import("./store/mongo/connection.js");
  const { createMongoDocumentStore } = await import("./store/mongo/documents.js");
  const client = await connectMongo(url);
  try {
    const documents = await createMongoDocumentStore({ url, client });
    const close = async () => {
      await documents.close().catch(() => {});
      await client.close();
    };
    return { documents, db: client.db(databaseNameFor(url)), close };
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}

/**
 * Documents in MongoDB or the embedded store; counters and cache invalidation in Redis or embedded; verification
 * events beside the documents. The embedded parts keep their data under KEYWARD_DATA_DIR.
 */
export async function openStores(
  config: Pick<Config, "mongodbUrl" | "dataDir" | "redisUrl"> & Partial<Pick<Config, "redisReplicaAcks" | "eventsRetentionDays" | "eventsMaxStored">>,
): Promise<Stores> {
  const closers: (() => Promise<void>)[] = [];
  // Without eventsMaxStored the embedded stream keeps its default (DEFAULT_MAX_STORED_EVENTS).
  const retention = { maxAgeMs: (config.eventsRetentionDays ?? DEFAULT_EVENTS_RETENTION_DAYS) * 86_400_000, maxEvents: config.eventsMaxStored };
  try {
    const mongo = config.mongodbUrl ? await openMongo(config.mongodbUrl) : undefined;
    if (mongo) closers.push(() => mongo.close());
    const documents = mongo?.documents ?? (await openDocumentStore(config));
    if (!mongo) closers.push(() => documents.close());

    let events: VerificationEventStore;
    let ratelimitEvents: VerificationEventStore;
    let auditLogs: AuditLogStore | undefined;
    if (mongo) {
      // One client for documents, events and the audit log: its pool serves event batches beside document
      // operations, and the server sees one pool per instance.
      const { createMongoEventStore } = await import("./store/mongo/events.js");
      events = await createMongoEventStore({ db: mongo.db, retention });
      ratelimitEvents = await createMongoEventStore({ db: mongo.db, retention, collections: { events: "ratelimit_events" } });
      const { createMongoAuditLogStore } = await import("./store/mongo/audit-logs.js");
      auditLogs = await createMongoAuditLogStore({ db: mongo.db });
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
 * The document store with its audit log, for the CLI's audited commands: the embedded store's own log, or a MongoDB
 * one over the documents' client. `close` closes both.
 */
export async function openAuditedDocumentStore(
  config: Pick<Config, "mongodbUrl" | "dataDir">,
): Promise<{ documents: DocumentStore; auditLogs: AuditLogStore; close(): Promise<void> }> {
  if (!config.mongodbUrl) {
    const documents = await openDocumentStore(config);
    if (!documents.auditLogs) throw new Error("the document store keeps no audit log");
    return { documents, auditLogs: documents.auditLogs, close: () => documents.close() };
  }
  const mongo = await openMongo(config.mongodbUrl);
  try {
    const { createMongoAuditLogStore } = await import("./store/mongo/audit-logs.js");
    const auditLogs = await createMongoAuditLogStore({ db: mongo.db });
    return { documents: mongo.documents, auditLogs, close: async () => { await auditLogs.close(); await mongo.close(); } };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}
