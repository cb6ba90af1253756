import { pino, type DestinationStream, type Logger } from "pino";
import { createBatchedDestination, type BatchedDestination } from "./log-destination.js";
import { createRequestLineWriter, type RequestLineWriter } from "./request-line.js";

export type { Logger } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fields that could hold a secret if anything ever put them in a log line: request headers, key material, root keys,
 * the encryption key, the metrics token. Nothing logs bodies or headers today; this is the second line of defence.
 */
const REDACTED_PATHS = [
  "authorization", "*.authorization", "headers", "*.headers", "body", "*.body",
  "key", "*.key", "rootKey", "*.rootKey", "plaintext", "*.plaintext", "encryptionKey", "*.encryptionKey", "token", "*.token",
];

/** The process's logger and the two ways its buffered lines are written out. */
export interface ProcessLogger {
  logger: Logger;
  /** Writes pending lines now, synchronously: for paths that end in `process.exit` without a normal stop. */
  flush(): void;
  /** Writes every pending line, in order, and closes the output: the last step of a normal stop. */
  close(): Promise<void>;
}

/**
 * A JSON-lines logger (pino) with secrets redacted. Output goes to `destination`, by default stdout, batched per
 * event-loop turn and written asynchronously (log-destination.ts), so logging costs no syscall per request; call
 * `close()` at a normal stop and `flush()` on any other way out.
 */
export function createLogger(options: { level: LogLevel; destination?: DestinationStream }): ProcessLogger {
  const destination: DestinationStream & { flushSync?: () => void; close?: () => Promise<void> } =
    options.destination ?? createBatchedDestination({ fd: 1 });
  const logger = pino({
    level: options.level,
    base: { pid: process.pid },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    serializers: { err: pino.stdSerializers.err },
  }, destination);
  outputs.set(logger, destination);
  const flush = (): void => {
    try {
      destination.flushSync?.();
    } catch {
      // Not open yet or already closed: nothing buffered to lose.
    }
  };
  return {
    logger,
    flush,
    async close() {
      if (destination.close) await destination.close();
      else flush();
    },
  };
}

const outputs = new WeakMap<Logger, DestinationStream>();

/**
 * For the request log's hot path: a writer of the lines pino would write for a request (request-line.ts) straight into
 * this logger's batched output. Only Keyward's own fields go this way (ids, names, numbers: nothing to redact), and
 * it skips pino's generic formatting. Undefined for a logger createLogger did not make (a child, a test's own) or
 * one writing to a destination of the caller's: its lines go through pino.
 */
export function requestLineWriter(logger: Logger): RequestLineWriter | undefined {
  const output = outputs.get(logger);
  return output && "room" in output ? createRequestLineWriter(output as BatchedDestination, process.pid) : undefined;
}
