import { Code } from "@connectrpc/connect";
import { collectDefaultMetrics, Registry } from "prom-client";
import { Histogram, LATENCY_BUCKETS, RequestTallies, RPC_TRANSPORTS, type TransportName } from "./route-tally.js";

/** What a buffered writer reports (the verification event batcher; the audit log's buffer reports the same). */
export interface BufferStats {
  buffered: number;
  written: number;
  dropped: number;
  failedWrites: number;
}

/** Hits and misses of a cache, read at scrape time. */
export interface CacheStats {
  hits: number;
  misses: number;
  size: number;
}

/** Calls of one store operation: latency of every call, and how many failed. */
export class StoreTally {
  readonly latency = new Histogram();
  errors = 0;
  constructor(readonly store: string, readonly operation: string) {}
}

type Sample = { value: number; labels?: Record<string, string | number>; metricName?: string };

/**
 * Keyward's metrics. The request path only adds to plain numbers (RequestTallies, StoreTally, the verification
 * counts); prom-client's registry reads them when /metrics is scraped, through collectors registered here. One
 * registry per app, so several servers in one process (tests, replicas) keep their own counts.
 */
export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  const requests = new RequestTallies();
  const verifications = new Map<string, number>();
  const stores: StoreTally[] = [];
  const caches = new Map<string, () => CacheStats>();
  const buffers = new Map<string, () => BufferStats>();

  const collector = (name: string, type: "counter" | "gauge" | "histogram", help: string, values: () => Sample[]) =>
    registry.registerMetric({ name, help, type, get: () => ({ name, help, type, values: values(), aggregator: "sum" }) } as never);

  collector("keyward_requests_total", "counter", "Requests answered, by transport, route (RPC name, `unknown` for unknown paths) and status (HTTP status for REST, gRPC code name for grpc, grpc-web and connect).", () =>
    requests.all().flatMap((tally) => [...tally.statuses].map(([status, value]) => ({
      value, labels: { transport: tally.transport, route: tally.route, status: statusLabel(tally.transport, status) },
    }))));
  collector("keyward_request_duration_seconds", "histogram", "Time from a request's arrival to its answer being ready, by transport and route.", () =>
    requests.all().flatMap((tally) => histogramSamples("keyward_request_duration_seconds", tally.latency, { transport: tally.transport, route: tally.route })));
  collector("keyward_verifications_total", "counter", "Key verifications by outcome code (VALID, NOT_FOUND, RATE_LIMITED, ...), on every transport.", () =>
    [...verifications].map(([code, value]) => ({ value, labels: { code } })));
  collector("keyward_store_operation_duration_seconds", "histogram", "Latency of store calls, by store (documents, counters) and operation.", () =>
    stores.filter((s) => s.latency.count > 0).flatMap((s) => histogramSamples("keyward_store_operation_duration_seconds", s.latency, { store: s.store, operation: s.operation })));
  collector("keyward_store_errors_total", "counter", "Store calls that failed, by store and operation.", () =>
    stores.filter((s) => s.errors > 0).map((s) => ({ value: s.errors, labels: { store: s.store, operation: s.operation } })));
  collector("keyward_cache_hits_total", "counter", "Cache lookups answered from the cache (a cached \"no such key\" included), by cache.", () =>
    [...caches].map(([cache, stats]) => ({ value: stats().hits, labels: { cache } })));
  collector("keyward_cache_misses_total", "counter", "Cache lookups that had to read the store, by cache.", () =>
    [...caches].map(([cache, stats]) => ({ value: stats().misses, labels: { cache } })));
  collector("keyward_cache_entries", "gauge", "Entries held, by cache.", () =>
    [...caches].map(([cache, stats]) => ({ value: stats().size, labels: { cache } })));
  collector("keyward_buffer_size", "gauge", "Items waiting in memory for the next write, by buffer (verification_events; audit_log once it exists).", () =>
    [...buffers].map(([buffer, stats]) => ({ value: stats().buffered, labels: { buffer } })));
  collector("keyward_buffer_written_total", "counter", "Items the backend accepted, by buffer.", () =>
    [...buffers].map(([buffer, stats]) => ({ value: stats().written, labels: { buffer } })));
  collector("keyward_buffer_dropped_total", "counter", "Items lost (overflow, refused, unwritten at close), by buffer.", () =>
    [...buffers].map(([buffer, stats]) => ({ value: stats().dropped, labels: { buffer } })));
  collector("keyward_buffer_failed_writes_total", "counter", "Writes that failed and were retried later, by buffer.", () =>
    [...buffers].map(([buffer, stats]) => ({ value: stats().failedWrites, labels: { buffer } })));

  if (options.defaultMetrics !== false) {
    try {
      collectDefaultMetrics({ register: registry });
    } catch {
      // A runtime without some of Node's process APIs (Deno) serves the Keyward metrics without them.
    }
  }

  return {
    registry,
    requests,
    /** Counts one verification outcome. */
    verified(code: string): void {
      verifications.set(code, (verifications.get(code) ?? 0) + 1);
    },
    /** The tally one wrapped store method adds to (made once, when the store is wrapped). */
    storeTally(store: string, operation: string): StoreTally {
      const tally = new StoreTally(store, operation);
      stores.push(tally);
      return tally;
    },
    /** Reports a cache's hits and misses under `keyward_cache_*{cache=name}`. */
    watchCache(name: string, stats: () => CacheStats): void {
      caches.set(name, stats);
    },
    /**
     * Reports a write buffer under `keyward_buffer_*{buffer=name}`. The verification event batcher is one; the audit
     * log's buffer is meant to be the next: `metrics.watchBuffer("audit_log", () => auditLog.stats())` in app.ts.
     */
    watchBuffer(name: string, stats: () => BufferStats): void {
      buffers.set(name, stats);
    },
    /** The exposition text of every metric, read now. */
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

const CODE_NAMES = new Map<number, string>(
  Object.values(Code).filter((v): v is number => typeof v === "number")
    .map((code) => [code, Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()]),
);

/** `200`, `404` for REST; `ok`, `not_found`, `unauthenticated` for the RPC protocols. */
export function statusLabel(transport: TransportName, status: number): string {
  if (!RPC_TRANSPORTS.has(transport)) return String(status);
  return status === 0 ? "ok" : CODE_NAMES.get(status) ?? String(status);
}

/** A histogram in prom-client's value format: cumulative `_bucket`s up to `+Inf`, then `_sum` and `_count`. */
function histogramSamples(name: string, histogram: Histogram, labels: Record<string, string>): Sample[] {
  const out: Sample[] = [];
  let cumulative = 0;
  for (let i = 0; i <= LATENCY_BUCKETS.length; i++) {
    cumulative += histogram.buckets[i];
    out.push({ metricName: `${name}_bucket`, value: cumulative, labels: { ...labels, le: i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i] : "+Inf" } });
  }
  out.push({ metricName: `${name}_sum`, value: histogram.sum, labels });
  out.push({ metricName: `${name}_count`, value: histogram.count, labels });
  return out;
}
