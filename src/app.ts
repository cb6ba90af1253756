import { randomBytes as nodeRandomBytes } from "node:crypto";
import type { DescService } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { ApisService } from "../gen/keyward/v1/apis_pb.js";
import { LivenessService } from "../gen/keyward/v1/liveness_pb.js";
import { RootKeysService } from "../gen/keyward/v1/root_keys_pb.js";
import { WorkspacesService } from "../gen/keyward/v1/workspaces_pb.js";
import { PermissionsService } from "../gen/keyward/v1/permissions_pb.js";
import { createPermissionsService } from "./services/rbac/permissions-service.js";
import { systemClock, type Clock } from "./domain/clock.js";
import type { RandomBytes } from "./domain/ids.js";
import { createApisService } from "./services/apis-service.js";
import { createLivenessService } from "./services/liveness-service.js";
import { createRootKeysService } from "./services/root-keys-service.js";
import { createWorkspacesService } from "./services/workspaces-service.js";
import { RatelimitService } from "../gen/keyward/v1/ratelimits_pb.js";
import { createRatelimitService } from "./services/ratelimit-service.js";
import { createLimitConfigCache } from "./services/ratelimits/limit-config-cache.js";
import { KeysService } from "../gen/keyward/v1/keys_pb.js";
import { createKeyCache, createLocalInvalidationBus, type InvalidationBus } from "./services/key-cache.js";
import { viewKey } from "./services/keys/key-context.js";
import { createKeysService } from "./services/keys/keys-service.js";
import { IdentitiesService } from "../gen/keyward/v1/identities_pb.js";
import { createIdentitiesService } from "./services/identities-service.js";
import type { CounterStore, DocumentStore, VerificationEventStore } from "./store/ports.js";
import { createAuthenticator, createRootKeyLookup, ROOT_KEY_CACHE_TTL_MS, type CachedRootKey } from "./transport/auth.js";
import { createDashboardHandler } from "./dashboard/handler.js";
import { createDashboardSessions } from "./dashboard/sessions.js";
import { assignRequestId, registerOperations, requestIdValues } from "./transport/connect.js";
import { createGrpcHandler, isGrpcRequest } from "./transport/grpc/handler.js";
import { createConnectUnaryHandler } from "./transport/connect-unary.js";
import { registerHealth } from "./transport/health.js";
import { REFLECTION_SERVICES, registerReflection } from "./transport/reflection.js";
import { createPipeline, operationsOf } from "./transport/pipeline.js";
import { H2Request, H2Response } from "./transport/h2-exchange.js";
import { createRestRouter, MAX_BODY_BYTES } from "./transport/rest/router.js";
import type { StreamHandler } from "./transport/server.js";
import { useFastTextEncoding } from "./transport/text-encoding.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { routesOf } from "./transport/rest/routes.js";

export interface AppOptions {
  documents: DocumentStore;
  counters: CounterStore;
  events: VerificationEventStore;
  /** Carries key-cache invalidations to other instances; local when there are none. */
  bus?: InvalidationBus;
  clock?: Clock;
  randomBytes?: RandomBytes;
  encryptionKey?: Buffer;
  docsUrl?: string;
  /** Extra readiness checks (e.g. Redis) for the health service. */
  ready?: () => Promise<boolean>;
}

const SERVICES: DescService[] = [
  ApisService, KeysService, IdentitiesService, PermissionsService, RatelimitService, RootKeysService, WorkspacesService, LivenessService,
];

/**
 * Wires services, the pipeline and the transports into one request handler: Connect, gRPC and gRPC-Web through
 * the Connect adapter, everything else through the REST router that the proto's HTTP bindings describe.
 */
export function createApp(options: AppOptions) {
  useFastTextEncoding();
  const clock = options.clock ?? systemClock;
  const randomBytes = options.randomBytes ?? ((size: number) => new Uint8Array(nodeRandomBytes(size)));
  const deps = { documents: options.documents, clock, randomBytes };
  const bus = options.bus ?? createLocalInvalidationBus();
  const cache = createKeyCache({ clock, bus });
  const rootKeyCache = createKeyCache<CachedRootKey>({ clock, bus, ttlMs: ROOT_KEY_CACHE_TTL_MS });
  const keysDeps = { ...deps, counters: options.counters, events: options.events, cache, encryptionKey: options.encryptionKey };
  const operations = [
    ...operationsOf(KeysService, createKeysService(keysDeps)),
    ...operationsOf(ApisService, createApisService({
      ...keysDeps,
      encryptionConfigured: options.encryptionKey !== undefined,
      viewKey: (key, view) => viewKey(keysDeps, key, view),
    })),
    ...operationsOf(RootKeysService, createRootKeysService({ ...deps, rootKeyCache })),
    ...operationsOf(WorkspacesService, createWorkspacesService(deps)),
    ...operationsOf(LivenessService, createLivenessService()),
    ...operationsOf(IdentitiesService, createIdentitiesService(keysDeps)),
    ...operationsOf(RatelimitService, createRatelimitService({ ...deps, counters: options.counters, limitCache: createLimitConfigCache({ clock, bus }) })),
    ...operationsOf(PermissionsService, createPermissionsService({ ...deps, cache })),
  ];
  const authDeps = { rootKeys: options.documents.rootKeys, clock, cache: rootKeyCache };
  const authenticate = createAuthenticator(authDeps);
  const invoke = createPipeline({ authenticate });
  const rest = createRestRouter({ routes: routesOf(operations), invoke, docsUrl: options.docsUrl ?? "https://keyward.dev/docs" });

  const ready = async () => {
    try {
      await options.documents.ping();
      return options.ready ? await options.ready() : true;
    } catch {
      return false;
    }
  };
  const rpc = connectNodeAdapter({
    routes(router) {
      registerOperations(router, SERVICES, operations, invoke);
      registerHealth(router, { services: SERVICES.map((s) => s.typeName), ready });
      registerReflection(router, [...SERVICES, Health]);
    },
    readMaxBytes: MAX_BODY_BYTES,
    contextValues: requestIdValues,
    fallback: (req, res) => void rest(req, res),
  });
  const connectUnary = createConnectUnaryHandler({ operations, invoke, maxBytes: MAX_BODY_BYTES });
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
  });
  // REST paths, the dashboard (src/dashboard) and Connect unary calls skip the Connect adapter; everything else
  // (gRPC-Web, streams, unknown paths) goes through it.
  const handler: typeof rpc = (req, res) => {
    const url = req.url ?? "";
    if (url.startsWith("/v1/") || url.startsWith("/v2/")) void rest(req, res);
    else if (url.startsWith("/dashboard")) dashboard(req, res);
    else if (!connectUnary(req, res)) {
      assignRequestId(req, res);
      rpc(req, res);
    }
  };
  // gRPC over HTTP/2 takes the lean unary path; connect-node keeps health and reflection (streaming RPCs).
  const grpc = createGrpcHandler({
    operations,
    invoke,
    passThrough: new Set([Health, ...REFLECTION_SERVICES].flatMap((s) => s.methods.map((m) => `/${s.typeName}/${m.name}`))),
    maxBytes: MAX_BODY_BYTES,
  });
  const stream: StreamHandler = (h2stream, headers) => {
    if (isGrpcRequest(headers)) return grpc(h2stream, headers);
    const path = headers[":path"] ?? "";
    if (path.startsWith("/v1/") || path.startsWith("/v2/")) {
      void rest(new H2Request(h2stream, headers), new H2Response(h2stream));
      return true;
    }
    return connectUnary(new H2Request(h2stream, headers), new H2Response(h2stream));
  };
  return { handler, stream, invoke, operations };
}
