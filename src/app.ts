import { randomBytes as nodeRandomBytes } from "node:crypto";
import type { DescService } from "@bufbuild/protobuf";
import { ApisService } from "../gen/keyward/v1/apis_pb.js";
import { LivenessService } from "../gen/keyward/v1/liveness_pb.js";
import { RootKeysService } from "../gen/keyward/v1/root_keys_pb.js";
import { WorkspacesService } from "../gen/keyward/v1/workspaces_pb.js";
import { PermissionsService } from "../gen/keyward/v1/permissions_pb.js";
import { createPermissionsService } from "./services/rbac/permissions-service.js";
import { systemClock, type Clock } from "./domain/clock.js";
import type { RandomBytes } from "./domain/ids.js";
import type { AddressRange } from "./domain/ip-allow-list.js";
import { createApisService } from "./services/apis-service.js";
import { createLivenessService } from "./services/liveness-service.js";
import { createRootKeysService } from "./services/root-keys-service.js";
import { createWorkspacesService } from "./services/workspaces-service.js";
import { RatelimitService } from "../gen/keyward/v1/ratelimits_pb.js";
import { createRatelimitService } from "./services/ratelimit-service.js";
import { createLimitConfigCache } from "./services/ratelimits/limit-config-cache.js";
import { KeysService } from "../gen/keyward/v1/keys_pb.js";
import { createKeyCache } from "./services/key-cache.js";
import { createLocalInvalidationBus, type InvalidationBus } from "./store/invalidation-bus.js";
import { viewKey } from "./services/keys/key-context.js";
import { createKeysService } from "./services/keys/keys-service.js";
import { createKeyImporter } from "./services/keys/import-keys.js";
import { createMigrationRunner } from "./services/keys/migration-runner.js";
import { IdentitiesService } from "../gen/keyward/v1/identities_pb.js";
import { createIdentitiesService } from "./services/identities-service.js";
import type { AuditLogStore } from "./store/ports/audit.js";
import type { CounterStore } from "./store/ports/counters.js";
import type { DocumentStore } from "./store/ports/documents.js";
import type { VerificationEventStore } from "./store/ports/events.js";
import { AuditLogsService } from "../gen/keyward/v1/audit_logs_pb.js";
import { createAuditLogsService } from "./services/audit/audit-logs-service.js";
import { auditOperations, auditScopes, type ServiceFactory } from "./services/audit/audited-operations.js";
import { createAuthenticator, createRootKeyLookup, ROOT_KEY_CACHE_TTL_MS, type CachedRootKey } from "./transport/auth.js";
import { createObservability, type ObservabilityOptions } from "./observability/observability.js";
import { createDashboardHandler, wantsDashboard } from "./dashboard/handler.js";
import { createDashboardSessions } from "./dashboard/sessions.js";
import { createProtocols } from "./transport/protocols.js";
import { createPipeline } from "./transport/pipeline.js";
import { operationsOf } from "./services/operation.js";
import { MAX_BODY_BYTES } from "./transport/rest/handler.js";
import { useFastTextEncoding } from "./transport/text-encoding.js";
import { AnalyticsService } from "../gen/keyward/v1/analytics_pb.js";
import { createAnalyticsService } from "./services/analytics/analytics-service.js";
import { WebhooksService } from "../gen/keyward/v1/webhooks_pb.js";
import { createWebhooksService } from "./services/webhooks/webhooks-service.js";
import { createWebhookEngine } from "./services/webhooks/webhook-engine.js";
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from "./config.js";

export interface AppOptions extends Omit<ObservabilityOptions, "documents" | "counters" | "events"> {
  documents: DocumentStore;
  counters: CounterStore;
  events: VerificationEventStore;
  /** Standalone rate-limit checks, recorded for analytics.getRatelimits; none recorded without it. */
  ratelimitEvents?: VerificationEventStore;
  /** Carries key-cache invalidations to other instances; local when there are none. */
  bus?: InvalidationBus;
  clock?: Clock;
  randomBytes?: RandomBytes;
  encryptionKey?: Buffer;
  docsUrl?: string;
  /** Where audit records go when the document store keeps none of its own (MongoDB). */
  auditLogs?: AuditLogStore;
  /** KEYWARD_TRUSTED_PROXIES, parsed: peers whose forwarding headers name the client (IP allow-lists). */
  trustedProxies?: readonly AddressRange[];
  /** KEYWARD_IDEMPOTENCY_WINDOW_SECONDS in ms (default 1 h): how long a verification's idempotency key answers retries. */
  idempotencyWindowMs?: number;
  /** Extra readiness checks (e.g. Redis) for the health service. */
  ready?: () => Promise<boolean>;
  /** Webhook delivery settings (KEYWARD_WEBHOOKS_*); defaults: public addresses only, 7 days, real-time retries. */
  webhooks?: Partial<WebhookSettings>;
}

export const SERVICES: DescService[] = [
  ApisService, KeysService, IdentitiesService, PermissionsService, RatelimitService, RootKeysService, WorkspacesService, LivenessService,
  AnalyticsService, AuditLogsService, WebhooksService,
];

/**
 * Wires stores, services and the pipeline, and hands the operations to the transport (transport/protocols.ts), which
 * serves them over REST, Connect, gRPC and gRPC-Web behind one dispatch, with the dashboard and /metrics mounted.
 */
export function createApp(options: AppOptions) {
  useFastTextEncoding();
  const clock = options.clock ?? systemClock;
  const randomBytes = options.randomBytes ?? ((size: number) => new Uint8Array(nodeRandomBytes(size)));
  // Metrics, request log, and the stores timed; the transports report each request to `done`.
  const observed = createObservability(options);
  const warn = (line: string) => observed.logger.warn(line);
  const { documents, counters, tallies, done } = observed;
  const deps = { documents, clock, randomBytes };
  const bus = options.bus ?? createLocalInvalidationBus();
  const cache = createKeyCache({ clock, bus });
  const rootKeyCache = createKeyCache<CachedRootKey>({ clock, bus, ttlMs: ROOT_KEY_CACHE_TTL_MS });
  observed.watchCache("keys", cache);
  observed.watchCache("root_keys", rootKeyCache);
  const limitCache = createLimitConfigCache({ clock, bus });
  const auditLogs = options.auditLogs ?? options.documents.auditLogs;
  // The embedded document store keeps its own audit log, and one process holds it (its LOCK file); MongoDB is shared.
  const onlyProcess = options.documents.auditLogs !== undefined;
  if (!auditLogs) throw new Error("no audit log store: the document store keeps none and none was given");
  observed.metrics.watchBuffer("audit_log", () => {
    const stats = auditLogs.stats();
    return { ...stats, buffered: stats.queued };
  });
  const webhookSettings = { ...DEFAULT_WEBHOOK_SETTINGS, ...options.webhooks };
  const webhooks = createWebhookEngine({
    documents, auditLogs, bus, clock, wallClock: systemClock, randomBytes, encryptionKey: options.encryptionKey,
    allowPrivate: webhookSettings.allowPrivate, retentionDays: webhookSettings.retentionDays, scale: webhookSettings.retryScale,
    log: warn,
    // The embedded audit log is written by this one process in id order; MongoDB's by several instances.
    lateWindowMs: onlyProcess ? 0 : 10_000,
  });
  const keysDeps = {
    ...deps, counters, events: options.events, cache, encryptionKey: options.encryptionKey, onVerified: observed.metrics.verified,
    trustedProxies: options.trustedProxies, idempotencyWindowMs: options.idempotencyWindowMs, usageSignals: webhooks.usage,
  };
  const audit = auditScopes({ documents, auditLogs, clock, randomBytes, trustedProxies: options.trustedProxies });
  // Each service from a factory over the stores: the shared ones here; per state-changing call, audited documents and
  // both views behind the call's commit gate (audited-operations.ts).
  // Queued imports (migrations.enqueueKeys) run here in the background, audited as the root key that queued them
  // with the job's id as request id (the call that queued it recorded migration.enqueue under its own); jobs a
  // previous process left unfinished resume now.
  const migrations = createMigrationRunner({
    documents,
    clock,
    // Alone on its store, this process is the only runner there is: a lease from before a restart is its own.
    owner: onlyProcess ? "this-process" : `runner_${Buffer.from(randomBytes(12)).toString("hex")}`,
    log: warn,
    importerFor: (job, principal) =>
      createKeyImporter({ ...keysDeps, documents: audit({ principal, requestId: job.id }, "key.create").documents }),
  });
  void migrations.resume().catch((error: unknown) => warn(`migrations: cannot resume queued imports: ${(error as Error).message}`));
  const factories = new Map<DescService, ServiceFactory>([
    [KeysService, (documents, counters) => createKeysService({ ...keysDeps, documents, counters, migrations })],
    [ApisService, (documents, counters) => createApisService({
      ...keysDeps,
      documents,
      counters,
      encryptionConfigured: options.encryptionKey !== undefined,
      viewKey: (key, view) => viewKey(keysDeps, key, view),
    })],
    [RootKeysService, (documents) => createRootKeysService({ ...deps, documents, rootKeyCache })],
    [WorkspacesService, (documents) => createWorkspacesService({ ...deps, documents })],
    [LivenessService, () => createLivenessService()],
    [IdentitiesService, (documents, counters) => createIdentitiesService({ ...keysDeps, documents, counters })],
    [RatelimitService, (documents, counters) => createRatelimitService({
      ...deps, documents, counters, limitCache, audit, events: options.ratelimitEvents, usageSignals: webhooks.usage,
    })],
    [PermissionsService, (documents) => createPermissionsService({ ...deps, documents, cache })],
    [AnalyticsService, (documents) => createAnalyticsService({ ...deps, documents, events: options.events, ratelimitEvents: options.ratelimitEvents })],
    [AuditLogsService, () => createAuditLogsService({ auditLogs })],
    [WebhooksService, (documents) => createWebhooksService({
      ...deps, documents, encryptionKey: options.encryptionKey, changed: (workspaceId) => webhooks.index.changed(workspaceId),
      nudge: webhooks.nudge,
    })],
  ]);
  const operations = auditOperations(
    [...factories].flatMap(([service, make]) => operationsOf(service, make(documents, counters))),
    { factories, scopes: audit, counters },
  );
  const authDeps = { rootKeys: documents.rootKeys, clock, cache: rootKeyCache };
  const authenticate = createAuthenticator(authDeps);
  const invoke = createPipeline({ authenticate });

  const ready = async () => {
    try {
      await documents.ping();
      return options.ready ? await options.ready() : true;
    } catch {
      return false;
    }
  };
  const dashboard = createDashboardHandler({
    sessions: createDashboardSessions({
      store: options.documents.dashboardSessions,
      clock,
      randomBytes,
      bus,
      principalOfRootKeyHash: createRootKeyLookup(authDeps),
    }),
    authenticate,
    operations,
    maxBytes: MAX_BODY_BYTES,
    tallies,
    done,
    clock,
    trustedProxies: options.trustedProxies ?? [],
    rootKeyName: async (workspaceId, rootKeyId) => (await documents.rootKeys.get(workspaceId, rootKeyId))?.name,
  });
  const { handler, stream, restRoutes } = createProtocols({
    services: SERVICES,
    operations,
    invoke,
    ready,
    docsUrl: options.docsUrl ?? "https://keyward.dev/docs",
    tallies,
    done,
    mounted: { dashboard, wantsDashboard, metrics: observed.serveMetrics },
  });
  return {
    handler, stream, invoke, operations, restRoutes, metrics: observed.metrics, migrations, webhooks,
    /** Stops the background work (queued imports, webhook fan-out and delivery); call before the stores close. */
    async stop(): Promise<void> {
      await migrations.stop();
      await webhooks.stop();
    },
  };
}
