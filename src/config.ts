/** Keyward's configuration, read from environment variables (DESIGN.md §2). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  mongodbUrl?: string;
  redisUrl?: string;
  rootKey?: string;
  encryptionKey?: Buffer;
  docsUrl: string;
  /** On SIGTERM/SIGINT, how long requests already received may take to finish before connections are dropped. */
  shutdownGraceMs: number;
  /** Verification events older than this many days are deleted (embedded: whole segments; MongoDB: TTL). */
  eventsRetentionDays: number;
}

export const DEFAULT_EVENTS_RETENTION_DAYS = 90;

/** Parses the environment; throws with a clear message for values that cannot work. */
export function readConfig(env: Record<string, string | undefined>): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  let encryptionKey: Buffer | undefined;
  if (env.KEYWARD_ENCRYPTION_KEY) {
    encryptionKey = Buffer.from(env.KEYWARD_ENCRYPTION_KEY, "base64");
    if (encryptionKey.length !== 32) throw new Error("KEYWARD_ENCRYPTION_KEY must be 32 bytes, base64-encoded");
  }
  if (env.KEYWARD_ROOT_KEY !== undefined && !/^[\x21-\x7e]{16,512}$/.test(env.KEYWARD_ROOT_KEY)) {
    throw new Error("KEYWARD_ROOT_KEY must be 16 to 512 printable characters without spaces");
  }
  const shutdownGraceMs = Number(env.KEYWARD_SHUTDOWN_GRACE_MS ?? 10_000);
  if (!Number.isInteger(shutdownGraceMs) || shutdownGraceMs < 0) {
    throw new Error(`KEYWARD_SHUTDOWN_GRACE_MS must be a whole number of milliseconds, got ${env.KEYWARD_SHUTDOWN_GRACE_MS}`);
  }
  const eventsRetentionDays = Number(env.KEYWARD_EVENTS_RETENTION_DAYS ?? DEFAULT_EVENTS_RETENTION_DAYS);
  if (!Number.isInteger(eventsRetentionDays) || eventsRetentionDays < 1 || eventsRetentionDays > 36_500) {
    throw new Error(`KEYWARD_EVENTS_RETENTION_DAYS must be a whole number of days from 1 to 36500, got ${env.KEYWARD_EVENTS_RETENTION_DAYS}`);
  }
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir: env.KEYWARD_DATA_DIR ?? "./data",
    mongodbUrl: env.MONGODB_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    rootKey: env.KEYWARD_ROOT_KEY || undefined,
    encryptionKey,
    docsUrl: (env.KEYWARD_DOCS_URL ?? "https://keyward.dev/docs").replace(/\/+$/, ""),
    shutdownGraceMs,
    eventsRetentionDays,
  };
}
