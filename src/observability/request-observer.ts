import { Code } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { RouteTally } from "./route-tally.js";
import { statusLabel } from "./metrics.js";

/** RPC codes that mean the server failed, as 5xx does for REST: always logged at error, with the stack. */
const SERVER_FAILURES = new Set<number>([Code.Unknown, Code.Internal, Code.Unavailable, Code.DataLoss]);

export interface RequestObserverOptions {
  logger: Logger;
  /** Share of successful requests that get a log line, 0..1; failed ones are always logged. */
  sampleRate: number;
}

/**
 * What every transport calls once per request, when its answer is ready: counts it (status and latency on `tally`)
 * and writes its log line. A failure (HTTP ≥ 400, RPC code ≠ OK) is always logged; a success only for the sampled
 * share. Only ids, names, status and duration are logged, never a body or a header.
 */
export function createRequestObserver(options: RequestObserverOptions) {
  const { logger } = options;
  // A request line is made of Keyward's own fields only (ids, names, numbers), so it skips redaction, which costs
  // ~9 µs a line (measured: 10 µs with the redact paths, 1 µs without). Error lines, which carry an error object,
  // keep it.
  const lines = logger.child({}, { redact: [] });
  const sampleRate = Math.min(1, Math.max(0, options.sampleRate));

  /**
   * `status` is the HTTP status for REST and the numeric code for the RPC protocols (0 = OK); `startedAt` a
   * `performance.now()` from the request's arrival; `error` the error that made the answer, for the log's stack.
   */
  return function requestDone(tally: RouteTally, status: number, startedAt: number, requestId: string | undefined, error?: unknown): void {
    const seconds = (performance.now() - startedAt) / 1000;
    tally.record(status, seconds);
    const { rpc } = tally;
    const failed = rpc ? status !== 0 : status >= 400;
    if (!failed && (sampleRate === 0 || (sampleRate < 1 && Math.random() >= sampleRate))) return;
    const serverFailure = rpc ? SERVER_FAILURES.has(status) : status >= 500;
    if (!serverFailure && !lines.isLevelEnabled("info")) return;
    const line = {
      requestId, transport: tally.transport, route: tally.route, status: rpc ? statusLabel(tally.transport, status) : status,
      durationMs: Math.round(seconds * 1e6) / 1e3,
    };
    if (serverFailure) logger.error({ ...line, err: error }, "request failed");
    else lines.info(line, "request");
  };
}

export type RequestDone = ReturnType<typeof createRequestObserver>;
