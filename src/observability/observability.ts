import type { CounterStore } from "../store/ports/counters.js";
import type { DocumentStore } from "../store/ports/documents.js";
import type { VerificationEventStore } from "../store/ports/events.js";
import { instrumentCounters, instrumentDocuments } from "./instrument-store.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetricsEndpoint, type MetricsAccess } from "./metrics-endpoint.js";
import { createMetrics, type BufferStats, type CacheStats } from "./metrics.js";
import { createRequestObserver } from "./request-observer.js";

export interface ObservabilityOptions {
  documents: DocumentStore;
  counters: CounterStore;
  events: VerificationEventStore;
  /** Request lines and errors go here; default: errors only, to stdout. */
  logger?: Logger;
  /** Share (0..1) of successful requests that get a log line; failed ones always do. Default 1. */
  logSampleRate?: number;
  /** GET /metrics: `open` by default; `off` also skips the store timing and the process metrics. */
  metricsAccess?: MetricsAccess;
}

/**
 * Everything the app needs to be observed, made once per app: the metrics, the per-request reporter the transports
 * call (`done`), the GET /metrics handler, and the stores to use instead of the given ones (the same stores, timed).
 * The verification event store's buffer is reported when it exposes `stats()`.
 */
export function createObservability(options: ObservabilityOptions) {
  const access = options.metricsAccess ?? { mode: "open" };
  const measured = access.mode !== "off";
  const metrics = createMetrics({ defaultMetrics: measured });
  const logger = options.logger ?? createLogger({ level: "error" }).logger;
  const events = options.events as VerificationEventStore & { stats?: () => BufferStats };
  if (typeof events.stats === "function") metrics.watchBuffer("verification_events", () => events.stats!());
  // The audit log's buffer goes next to it: metrics.watchBuffer("audit_log", () => auditLog.stats()).
  return {
    metrics,
    /** The process's logger; background work (imports, webhooks) reports its failures here as warnings. */
    logger,
    tallies: metrics.requests,
    done: createRequestObserver({ logger, sampleRate: options.logSampleRate ?? 1 }),
    serveMetrics: createMetricsEndpoint({ metrics, access }),
    documents: measured ? instrumentDocuments(options.documents, metrics) : options.documents,
    counters: measured ? instrumentCounters(options.counters, metrics) : options.counters,
    /** Reports a key cache's hits and misses as `keyward_cache_*{cache=name}`. */
    watchCache(name: string, cache: { stats(): CacheStats }): void {
      metrics.watchCache(name, () => cache.stats());
    },
  };
}
