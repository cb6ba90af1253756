/**
 * What `npm run bench` measures: a declarative list of servers and targets. To add a target, append an
 * entry (and, if it needs another configuration, a server). Targets of the same server share one server
 * process and run in list order; the target named by `baselineName` is the one ratios are taken against.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { GetApiRequestSchema } from "../gen/keyward/v1/apis_pb.js";
import { VerifyKeyRequestSchema } from "../gen/keyward/v1/keys_pb.js";
import { PEER_KEY } from "./peer-key.js";
import type { ServerSpec } from "./servers.js";

export const servers = {
  bare: { entry: "bench/bare-handler.ts" },
  "bare-h2": { entry: "bench/bare-grpc.ts", readyByConnect: true },
  "grpc-js peer": { entry: "bench/grpc-js-peer.ts", readyByConnect: true },
  // Hand-rolled node:http peers (part "bench"): memory only, and durable in SQLite.
  "http peer": { entry: "bench/http-peer.ts", readyByConnect: true },
  "sqlite peer": { entry: "bench/sqlite-peer.ts", readyByConnect: true },
  keyward: { entry: "src/main.ts" },
  "keyward+redis": { entry: "src/main.ts", redis: true },
  "http redis peer": { entry: "bench/http-redis-peer.ts", redis: true, readyByConnect: true },
  "grpc-js redis peer": { entry: "bench/grpc-js-redis-peer.ts", redis: true, readyByConnect: true },
  // Webhook secrets are stored encrypted: endpoints need an encryption key (a fixed one: nothing here is secret).
  "keyward+webhooks": { entry: "src/main.ts", env: { KEYWARD_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") } },
} satisfies Record<string, ServerSpec>;

export type ServerName = keyof typeof servers;

/** Values a setup seeded through the API (ids), passed to `headers` and `body`. */
export type Seed = Record<string, string>;

export interface TargetContext {
  baseUrl: string;
  rootKey: string;
  seed: Seed;
}

export interface Target {
  name: string;
  server: ServerName;
  protocol: "h1" | "h2c";
  /** Streams per connection (h2load -m); 1 when absent. */
  streams?: number;
  /** h2load sends POST when there is a body and GET otherwise; the bench checks they agree. */
  method: "GET" | "POST";
  path: string;
  headers: (ctx: TargetContext) => Record<string, string>;
  body?: (ctx: TargetContext) => Uint8Array;
  /** Seeds data through the API before the load. */
  setup?: (server: { baseUrl: string; rootKey: string }) => Promise<Seed>;
  /** Keyward rows: the peer rows to compare req/s with (they run whenever this row runs). */
  versus?: PeerMatch[];
  /**
   * Run at a fixed offered load (h2load --rps) of half `capacityOf`'s req/s, measured earlier in the same round;
   * `isBaseline` marks the bare handler's row whose p99 the others at that load are compared with; `fullLoadRow`
   * names the same target's row without a fixed rate, whose req/s the offered load is also put against.
   */
  fixedRate?: { capacityOf: string; isBaseline?: boolean; fullLoadRow?: string };
}

/** The targets one server process serves: `server` started once for them, measured in this order. */
export interface ServerProcess {
  server: ServerName;
  targets: Target[];
}

/**
 * Targets grouped into server processes, one per server and HTTP version, in order of first appearance. Once a Node
 * process has served HTTP/2, its HTTP/1.1 path stays about 15 % slower for the rest of its life (on the bare handler:
 * 12.7 -> 14.7 µs a request, p99 at a fixed load 1.2 -> 1.8 ms; docs/bench.md), and each bare reference serves one
 * version only. So does every process measured against them.
 */
export function serverProcesses(list: readonly Target[]): ServerProcess[] {
  const processes = new Map<string, ServerProcess>();
  for (const target of list) {
    const key = `${target.server} ${target.protocol}`;
    const group = processes.get(key) ?? { server: target.server, targets: [] };
    group.targets.push(target);
    processes.set(key, group);
  }
  return [...processes.values()];
}

/** A peer row, by parts of its name (case-insensitive), shown as `label` in the "vs peer" column. */
export interface PeerMatch {
  label: string;
  includes: string;
  excludes?: string;
}

export const baselineName = "bare node:http";
/** The reference for HTTP/2 rows, one per -m: `bare node:http2 gRPC handler -m1`, `... -m10`. */
export const bareH2Name = "bare node:http2 gRPC handler";

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const bearer = ({ rootKey }: TargetContext) => ({ authorization: `Bearer ${rootKey}` });

/** gRPC length-prefixed message: flag byte 0 (uncompressed), 4-byte big-endian length, message. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(5 + message.byteLength);
  new DataView(frame.buffer).setUint32(1, message.byteLength);
  frame.set(message, 5);
  return frame;
}

/** Creates an api with the root key; the seed is `{ apiId }`. */
export async function seedApi({ baseUrl, rootKey }: { baseUrl: string; rootKey: string }): Promise<Seed> {
  const res = await fetch(`${baseUrl}/v2/apis.createApi`, {
    method: "POST",
    headers: { authorization: `Bearer ${rootKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench-api" }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`seeding apis.createApi answered ${res.status}: ${text}`);
  const apiId = (JSON.parse(text) as { data?: { apiId?: string } }).data?.apiId;
  if (typeof apiId !== "string") throw new Error(`seeding apis.createApi gave no data.apiId: ${text}`);
  return { apiId };
}

/**
 * Creates an api and a key with credits and one rate limit, both far from running out, so every verification
 * does the full work (lookup, limit window, credit deduction) and answers VALID. The seed is `{ apiId, key }`.
 */
export async function seedKey(server: { baseUrl: string; rootKey: string }): Promise<Seed> {
  const { apiId } = await seedApi(server);
  const res = await fetch(`${server.baseUrl}/v2/keys.createKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.rootKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      apiId,
      prefix: "bench",
      credits: { remaining: 1_000_000_000 },
      ratelimits: [{ name: "requests", limit: 1_000_000_000, duration: 60_000, autoApply: true }],
    }),
  });
  const text = await res.text();
  const key = res.status === 200 ? (JSON.parse(text) as { data?: { key?: string } }).data?.key : undefined;
  if (typeof key !== "string") throw new Error(`seeding keys.createKey answered ${res.status}: ${text}`);
  return { apiId, key };
}

/**
 * As seedKey, but the key belongs to an identity: with `sharedCredits`, one that carries credits too (far from running
 * out), so each verification also spends from the identity's balance in the same counter step.
 */
function seedIdentityKey(options: { sharedCredits: boolean }) {
  return async (server: { baseUrl: string; rootKey: string }): Promise<Seed> => {
    const externalId = `bench_${options.sharedCredits ? "credits" : "plain"}_${Date.now()}`;
    const res = await fetch(`${server.baseUrl}/v2/identities.createIdentity`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.rootKey}`, "content-type": "application/json" },
      body: JSON.stringify({ externalId, ...(options.sharedCredits && { credits: { remaining: 1_000_000_000 } }) }),
    });
    if (res.status !== 200) throw new Error(`seeding identities.createIdentity answered ${res.status}: ${await res.text()}`);
    const { apiId } = await seedApi(server);
    const created = await fetch(`${server.baseUrl}/v2/keys.createKey`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.rootKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        apiId, prefix: "bench", externalId, credits: { remaining: 1_000_000_000 },
        ratelimits: [{ name: "requests", limit: 1_000_000_000, duration: 60_000, autoApply: true }],
      }),
    });
    const text = await created.text();
    const key = created.status === 200 ? (JSON.parse(text) as { data?: { key?: string } }).data?.key : undefined;
    if (typeof key !== "string") throw new Error(`seeding keys.createKey answered ${created.status}: ${text}`);
    return { apiId, key };
  };
}

/** REST v2 verification of a key of an identity without and with shared credits, on the same server. */
const restVerifyIdentity = (server: ServerName, label: string, sharedCredits: boolean): Target => ({
  ...restVerify(server, `${label}, identity ${sharedCredits ? "with" : "without"} credits`),
  setup: seedIdentityKey({ sharedCredits }),
});

const restVerify = (server: ServerName, label: string, protocol: "h1" | "h2c" = "h1"): Target => ({
  name: `REST v2 keys.verifyKey (${label})`,
  server,
  protocol,
  method: "POST",
  path: "/v2/keys.verifyKey",
  setup: seedKey,
  headers: (ctx) => ({ ...bearer(ctx), "content-type": "application/json" }),
  body: ({ seed }) => json({ key: seed.key }),
});

const grpcHeaders = (ctx: TargetContext) => ({ ...bearer(ctx), "content-type": "application/grpc", te: "trailers" });
const verifyFrame = (key: string) => grpcFrame(toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key })));

const grpcVerify = (streams: number): Target => ({
  name: `gRPC VerifyKey (embedded) -m${streams}`,
  server: "keyward",
  protocol: "h2c",
  streams,
  method: "POST",
  path: "/keyward.v1.KeysService/VerifyKey",
  setup: seedKey,
  headers: grpcHeaders,
  body: ({ seed }) => verifyFrame(seed.key),
});

const bareH2 = (streams: number): Target => ({
  name: `${bareH2Name} -m${streams}`,
  server: "bare-h2",
  protocol: "h2c",
  streams,
  method: "POST",
  path: "/keyward.v1.KeysService/VerifyKey",
  headers: () => ({ "content-type": "application/grpc", te: "trailers" }),
  body: () => verifyFrame("bench_x"),
});

const grpcJsPeer = (streams: number): Target => ({
  name: `@grpc/grpc-js peer VerifyKey (SHA-256 + rate-limiter-flexible) -m${streams}`,
  server: "grpc-js peer",
  protocol: "h2c",
  streams,
  method: "POST",
  path: "/keyward.v1.KeysService/VerifyKey",
  headers: () => ({ "content-type": "application/grpc", te: "trailers" }),
  body: () => verifyFrame(PEER_KEY),
});

// Part "bench": the node:http peers, what Keyward's rows are compared with, and the fixed-rate latency rows.
const peerVerify = (name: string, server: ServerName): Target => ({
  name,
  server,
  protocol: "h1",
  method: "POST",
  path: "/v2/keys.verifyKey",
  headers: () => ({ "content-type": "application/json" }),
  body: () => json({ key: PEER_KEY }),
});

const httpPeers: Target[] = [
  peerVerify("node:http peer verifyKey (SHA-256 + rate-limiter-flexible memory)", "http peer"),
  peerVerify("node:http durable peer verifyKey (SHA-256 + SQLite WAL credits and window)", "sqlite peer"),
];
const memoryPeer: PeerMatch = { label: "memory peer", includes: "node:http peer", excludes: "RateLimiterRedis" };
const durablePeer: PeerMatch = { label: "SQLite peer", includes: "node:http durable peer" };
const redisPeerMatch: PeerMatch = { label: "RateLimiterRedis peer", includes: "RateLimiterRedis" };
const grpcJsPeerMatch: PeerMatch = { label: "grpc-js peer", includes: "@grpc/grpc-js peer", excludes: "RateLimiterRedis" };

const atHalf = (target: Target, capacityOf: string, short: string, isBaseline = false): Target => ({
  ...target,
  name: `${target.name} @ ½ ${short} capacity`,
  versus: undefined,
  fixedRate: { capacityOf, isBaseline, fullLoadRow: target.name },
});
const bareH1Row = (): Target => ({
  name: baselineName,
  server: "bare",
  protocol: "h1",
  method: "POST",
  path: "/v2/apis.getApi",
  headers: () => ({ "content-type": "application/json" }),
  body: () => json({ apiId: "api_x" }),
});
const fixedRateRows: Target[] = [
  atHalf(bareH1Row(), baselineName, "bare h1", true),
  atHalf(restVerify("keyward", "embedded"), baselineName, "bare h1"),
  atHalf(bareH2(1), `${bareH2Name} -m1`, "bare h2 -m1", true),
  atHalf(grpcVerify(1), `${bareH2Name} -m1`, "bare h2 -m1"),
];
// End of part "bench".

/**
 * As seedKey, plus (once per server) five webhook endpoints of the workspace subscribed to the credit events, with
 * thresholds the bench's balance never reaches: every verification pays the in-memory check and nothing else.
 */
async function seedKeyWithWebhooks(server: { baseUrl: string; rootKey: string }): Promise<Seed> {
  const call = async (op: string, body: unknown) => {
    const res = await fetch(`${server.baseUrl}/v2/${op}`, {
      method: "POST", headers: { authorization: `Bearer ${server.rootKey}`, "content-type": "application/json" }, body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`seeding ${op} answered ${res.status}: ${text}`);
    return JSON.parse(text) as { data: any };
  };
  const existing = (await call("webhooks.listWebhooks", {})).data.length as number;
  for (let i = existing; i < 5; i++) {
    await call("webhooks.createWebhook", {
      url: `https://hooks.example.com/bench/${i}`, events: ["key.credits.low", "key.credits.exhausted"],
      thresholds: { credits: [{ remaining: 10 }, { percent: 20 }] },
    });
  }
  return seedKey(server);
}

/** Verification on one server without webhooks, then with five subscribed to credit events: the same run. */
const webhookRows = (): Target[] => [
  restVerify("keyward+webhooks", "embedded, no webhooks"),
  { ...grpcVerify(10), name: "gRPC VerifyKey (embedded, no webhooks) -m10", server: "keyward+webhooks" },
  { ...restVerify("keyward+webhooks", "embedded, 5 webhooks on credit events"), setup: seedKeyWithWebhooks },
  { ...grpcVerify(10), name: "gRPC VerifyKey (embedded, 5 webhooks on credit events) -m10", server: "keyward+webhooks", setup: seedKeyWithWebhooks },
];

export const targets: Target[] = [
  bareH1Row(),
  bareH2(1),
  bareH2(10),
  grpcJsPeer(1),
  grpcJsPeer(10),
  ...httpPeers,
  {
    name: "REST v2 apis.getApi",
    server: "keyward",
    protocol: "h1",
    method: "POST",
    path: "/v2/apis.getApi",
    setup: seedApi,
    headers: (ctx) => ({ ...bearer(ctx), "content-type": "application/json" }),
    body: ({ seed }) => json({ apiId: seed.apiId }),
  },
  {
    name: "Connect GetApi",
    server: "keyward",
    protocol: "h1",
    method: "POST",
    path: "/keyward.v1.ApisService/GetApi",
    setup: seedApi,
    headers: (ctx) => ({ ...bearer(ctx), "content-type": "application/json" }),
    body: ({ seed }) => json({ apiId: seed.apiId }),
  },
  {
    name: "gRPC GetApi",
    server: "keyward",
    protocol: "h2c",
    method: "POST",
    path: "/keyward.v1.ApisService/GetApi",
    setup: seedApi,
    headers: grpcHeaders,
    body: ({ seed }) => grpcFrame(toBinary(GetApiRequestSchema, create(GetApiRequestSchema, { apiId: seed.apiId }))),
  },
  { ...restVerify("keyward", "embedded"), versus: [memoryPeer, durablePeer] },
  restVerify("keyward", "embedded, h2c", "h2c"),
  { ...grpcVerify(1), versus: [grpcJsPeerMatch] },
  { ...grpcVerify(10), versus: [grpcJsPeerMatch] },
  restVerifyIdentity("keyward", "embedded", false),
  restVerifyIdentity("keyward", "embedded", true),
  ...webhookRows(),
  // The Redis peers (part D): the same verification hand-rolled with rate-limiter-flexible's RateLimiterRedis.
  {
    name: "node:http + RateLimiterRedis peer",
    server: "http redis peer",
    protocol: "h1",
    method: "POST",
    path: "/v2/keys.verifyKey",
    headers: () => ({ "content-type": "application/json" }),
    body: () => json({ key: PEER_KEY }),
  },
  ...[1, 10].map((streams): Target => ({
    ...grpcJsPeer(streams),
    name: `grpc-js + RateLimiterRedis peer -m${streams}`,
    server: "grpc-js redis peer",
  })),
  { ...restVerify("keyward+redis", "redis counters"), versus: [redisPeerMatch] },
  // -m1 only: at -m10 the /metrics cross-check of run.ts counted up to 210 more than it sent (requests of the timed load
  // still in flight on Redis when the count starts).
  { ...grpcVerify(1), name: "gRPC VerifyKey (redis counters) -m1", server: "keyward+redis", versus: [redisPeerMatch] },
  restVerifyIdentity("keyward+redis", "redis counters", false),
  restVerifyIdentity("keyward+redis", "redis counters", true),
  {
    name: "REST v2 ratelimit.limit (redis counters)",
    server: "keyward+redis",
    protocol: "h1",
    method: "POST",
    path: "/v2/ratelimit.limit",
    headers: (ctx) => ({ ...bearer(ctx), "content-type": "application/json" }),
    // The namespace is created by the first call (the bench root key holds create_namespace); the limit never runs out.
    body: () => json({ namespace: "bench", identifier: "user_1", limit: 1_000_000_000, duration: 60_000 }),
  },
  ...fixedRateRows,
];
