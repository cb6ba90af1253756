import { pino, type DestinationStream, type Logger } from "pino";

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

/**
 * A JSON-lines logger (pino) with secrets redacted. Output goes to `destination`, by default stdout written
 * asynchronously (lines written while a write is in flight go out together, so logging does not cost one syscall per
 * request); call `flush()` before the process exits.
 */
export function createLogger(options: { level: LogLevel; destination?: DestinationStream }): { logger: Logger; flush(): void } {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  const logger = pino({
    level: options.level,
    base: { pid: process.pid },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    serializers: { err: pino.stdSerializers.err },
  }, destination);
  return {
    logger,
    flush() {
      const stream = destination as { flushSync?: () => void };
      try {
        stream.flushSync?.();
      } catch {
        // Not open yet or already closed: nothing buffered to lose.
      }
    },
  };
}
