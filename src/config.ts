import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from "./domain/idempotency.js";
import { parseAddressRanges, type AddressRange } from "./domain/ip-allow-list.js";
import { LOG_LEVELS, type LogLevel } from "./observability/logger.js";
import type { MetricsAccess } from "./observability/metrics-endpoint.js";
import { DEFAULT_MAX_STORED_EVENTS } from "./store/ports/events.js";
import { parseRedisUrl } from "./store/redis/redis-url.js";
import { DEFAULT_LIMITS, type ConnectionLimits } from "./transport/server.js";
import { accessSync, constants, statSync } from "node:fs";
import { unreadableReason, type TlsFiles } from "./transport/tls-certificates.js";

/** Keyward's configuration, read from environment variables (DESIGN.md §2). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  mongodbUrl?: string;
  /** One server (`redis://`), a cluster (`redis+cluster://h1:p1,h2:p2`) or a Sentinel master (`redis+sentinel://h1:p1,h2:p2/name`). */
  redisUrl?: string;
  /** Replicas that must hold a counter change before it is answered (Redis WAIT); 0 = answer once the master has it. */
  redisReplicaAcks: number;
  rootKey?: string;
  encryptionKey?: Buffer;
  docsUrl: string;
  /** On SIGTERM/SIGINT, how long requests already received may take to finish before connections are dropped. */
  shutdownGraceMs: number;
  /** Bounds on slow or greedy clients (KEYWARD_HEADERS_TIMEOUT_MS, KEYWARD_REQUEST_TIMEOUT_MS, KEYWARD_MAX_CONNECTIONS, KEYWARD_MAX_STREAMS). */
  limits: ConnectionLimits;
  /** KEYWARD_LOG_LEVEL: the least severe level written. */
  logLevel: LogLevel;
  /** KEYWARD_LOG_SAMPLE_RATE: share (0..1) of successful requests that get a log line; failures always do. */
  logSampleRate: number;
  /** KEYWARD_METRICS and KEYWARD_METRICS_TOKEN: whether GET /metrics is served, and whether it wants a token. */
  metrics: MetricsAccess;
  /** Verification events older than this many days are deleted (embedded: whole segments; MongoDB: TTL). */
  eventsRetentionDays: number;
  /**
   * KEYWARD_EVENTS_MAX_STORED: the embedded store keeps at most about this many verification events, and as many
   * rate-limit events; past it the oldest hourly segments go first, whatever their age. MongoDB has no such cap.
   */
  eventsMaxStored: number;
  /**
   * KEYWARD_TRUSTED_PROXIES: the peers (addresses and CIDR ranges) whose `Forwarded` / `X-Forwarded-For` headers name
   * the client for IP allow-lists, audit records and sign-in throttling; empty: every peer is the client itself.
   */
  trustedProxies: AddressRange[];
  /**
   * KEYWARD_TLS_CERT_FILE, KEYWARD_TLS_KEY_FILE (and KEYWARD_TLS_CLIENT_CA_FILE for mTLS): serve HTTPS and HTTP/2 over
   * TLS on the port; unset: cleartext HTTP/1.1 and h2c, as before.
   */
  tls?: TlsFiles;
  /** KEYWARD_IDEMPOTENCY_WINDOW_SECONDS in ms: how long a verification's idempotency key answers retries (default 1 h). */
  idempotencyWindowMs: number;
  /** Webhook delivery (docs/webhooks.md). */
  webhooks: WebhookSettings;
}

export interface WebhookSettings {
  /** KEYWARD_WEBHOOKS_ALLOW_PRIVATE: endpoints may resolve to private, loopback and link-local addresses. */
  allowPrivate: boolean;
  /** KEYWARD_WEBHOOKS_RETENTION_DAYS: how long delivered and failed messages are kept. */
  retentionDays: number;
  /** KEYWARD_WEBHOOKS_RETRY_SCALE, for testing: multiplies every retry delay and poll interval (1 in production). */
  retryScale: number;
}

export const DEFAULT_EVENTS_RETENTION_DAYS = 90;
export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = { allowPrivate: false, retentionDays: 7, retryScale: 1 };

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
  // Checked here so a malformed REDIS_URL stops the start with its reason (the parser never echoes a password).
  if (env.REDIS_URL) parseRedisUrl(env.REDIS_URL);
  const redisReplicaAcks = Number(env.KEYWARD_REDIS_REPLICA_ACKS ?? 0);
  if (!Number.isInteger(redisReplicaAcks) || redisReplicaAcks < 0 || redisReplicaAcks > 16) {
    throw new Error(`KEYWARD_REDIS_REPLICA_ACKS must be a whole number from 0 to 16, got ${env.KEYWARD_REDIS_REPLICA_ACKS}`);
  }
  const shutdownGraceMs = wholeNumber(env, "KEYWARD_SHUTDOWN_GRACE_MS", 10_000, { min: 0, unit: "milliseconds" });
  const limits: ConnectionLimits = {
    headersTimeoutMs: wholeNumber(env, "KEYWARD_HEADERS_TIMEOUT_MS", DEFAULT_LIMITS.headersTimeoutMs, { min: 1, unit: "milliseconds" }),
    requestTimeoutMs: wholeNumber(env, "KEYWARD_REQUEST_TIMEOUT_MS", DEFAULT_LIMITS.requestTimeoutMs, { min: 1, unit: "milliseconds" }),
    maxConnections: wholeNumber(env, "KEYWARD_MAX_CONNECTIONS", DEFAULT_LIMITS.maxConnections, { min: 1, unit: "connections" }),
    maxConcurrentStreams: wholeNumber(env, "KEYWARD_MAX_STREAMS", DEFAULT_LIMITS.maxConcurrentStreams, { min: 1, unit: "streams" }),
  };
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    throw new Error("KEYWARD_REQUEST_TIMEOUT_MS must not be shorter than KEYWARD_HEADERS_TIMEOUT_MS");
  }
  const logLevel = (env.KEYWARD_LOG_LEVEL || "info").toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`KEYWARD_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got ${env.KEYWARD_LOG_LEVEL}`);
  const logSampleRate = Number(env.KEYWARD_LOG_SAMPLE_RATE || 1);
  if (!(logSampleRate >= 0 && logSampleRate <= 1)) {
    throw new Error(`KEYWARD_LOG_SAMPLE_RATE must be a number from 0 to 1, got ${env.KEYWARD_LOG_SAMPLE_RATE}`);
  }
  const eventsRetentionDays = Number(env.KEYWARD_EVENTS_RETENTION_DAYS ?? DEFAULT_EVENTS_RETENTION_DAYS);
  if (!Number.isInteger(eventsRetentionDays) || eventsRetentionDays < 1 || eventsRetentionDays > 36_500) {
    throw new Error(`KEYWARD_EVENTS_RETENTION_DAYS must be a whole number of days from 1 to 36500, got ${env.KEYWARD_EVENTS_RETENTION_DAYS}`);
  }
  const eventsMaxStored = wholeNumber(env, "KEYWARD_EVENTS_MAX_STORED", DEFAULT_MAX_STORED_EVENTS, { min: 1, unit: "events" });
  const idempotencyWindowSeconds = wholeNumber(env, "KEYWARD_IDEMPOTENCY_WINDOW_SECONDS", DEFAULT_IDEMPOTENCY_WINDOW_MS / 1000, {
    min: 1, unit: "seconds",
  });
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir: env.KEYWARD_DATA_DIR ?? "./data",
    mongodbUrl: env.MONGODB_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisReplicaAcks,
    rootKey: env.KEYWARD_ROOT_KEY || undefined,
    encryptionKey,
    docsUrl: (env.KEYWARD_DOCS_URL ?? "https://keyward.dev/docs").replace(/\/+$/, ""),
    shutdownGraceMs,
    limits,
    logLevel,
    logSampleRate,
    metrics: metricsAccessOf(env),
    eventsRetentionDays,
    eventsMaxStored,
    trustedProxies: trustedProxiesOf(env.KEYWARD_TRUSTED_PROXIES),
    tls: tlsFilesOf(env),
    idempotencyWindowMs: idempotencyWindowSeconds * 1000,
    webhooks: webhookSettingsOf(env),
  };
}

/** KEYWARD_WEBHOOKS_*; a value that cannot work stops the start naming the variable. */
export function webhookSettingsOf(env: Record<string, string | undefined>): WebhookSettings {
  const allow = (env.KEYWARD_WEBHOOKS_ALLOW_PRIVATE ?? "false").toLowerCase();
  if (allow !== "true" && allow !== "false") throw new Error(`KEYWARD_WEBHOOKS_ALLOW_PRIVATE must be true or false, got ${env.KEYWARD_WEBHOOKS_ALLOW_PRIVATE}`);
  const retentionDays = wholeNumber(env, "KEYWARD_WEBHOOKS_RETENTION_DAYS", DEFAULT_WEBHOOK_SETTINGS.retentionDays, { min: 1, unit: "days" });
  const retryScale = Number(env.KEYWARD_WEBHOOKS_RETRY_SCALE ?? 1);
  if (!(retryScale > 0 && retryScale <= 1)) {
    throw new Error(`KEYWARD_WEBHOOKS_RETRY_SCALE must be a number above 0 and at most 1, got ${env.KEYWARD_WEBHOOKS_RETRY_SCALE}`);
  }
  return { allowPrivate: allow === "true", retentionDays, retryScale };
}

/**
 * The TLS files, each checked to be a readable file so a typo stops the start with the variable and path named;
 * the certificate and key come together, and a client CA needs them. Whether the PEM contents work is checked when
 * the server reads them (transport/tls-certificates.ts).
 */
export function tlsFilesOf(env: Record<string, string | undefined>): TlsFiles | undefined {
  const certFile = env.KEYWARD_TLS_CERT_FILE || undefined;
  const keyFile = env.KEYWARD_TLS_KEY_FILE || undefined;
  const clientCaFile = env.KEYWARD_TLS_CLIENT_CA_FILE || undefined;
  if (!certFile && !keyFile) {
    if (clientCaFile) throw new Error("KEYWARD_TLS_CLIENT_CA_FILE needs KEYWARD_TLS_CERT_FILE and KEYWARD_TLS_KEY_FILE (mTLS is TLS with client certificates)");
    return undefined;
  }
  if (!certFile) throw new Error("KEYWARD_TLS_KEY_FILE is set but KEYWARD_TLS_CERT_FILE is not: TLS needs both");
  if (!keyFile) throw new Error("KEYWARD_TLS_CERT_FILE is set but KEYWARD_TLS_KEY_FILE is not: TLS needs both");
  readableFile("KEYWARD_TLS_CERT_FILE", certFile);
  readableFile("KEYWARD_TLS_KEY_FILE", keyFile);
  if (clientCaFile) readableFile("KEYWARD_TLS_CLIENT_CA_FILE", clientCaFile);
  return { certFile, keyFile, clientCaFile };
}

function readableFile(name: string, path: string): void {
  try {
    if (!statSync(path).isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" });
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new Error(`${name}: cannot read ${path} (${unreadableReason(error)})`);
  }
}

/** Comma-separated addresses and CIDR ranges; blanks around entries are ignored, a bad entry stops the start. */
export function trustedProxiesOf(raw: string | undefined): AddressRange[] {
  const entries = (raw ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  const parsed = parseAddressRanges(entries);
  if ("error" in parsed) {
    throw new Error(`KEYWARD_TRUSTED_PROXIES: ${JSON.stringify(parsed.error.entry)} is not an IPv4 or IPv6 address or CIDR range`);
  }
  return parsed.ranges;
}

function wholeNumber(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  rule: { min: number; unit: string },
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < rule.min) {
    throw new Error(`${name} must be a whole number of ${rule.unit}${rule.min > 0 ? ` (at least ${rule.min})` : ""}, got ${raw}`);
  }
  return value;
}

function metricsAccessOf(env: Record<string, string | undefined>): MetricsAccess {
  const mode = (env.KEYWARD_METRICS || "on").toLowerCase();
  if (mode !== "on" && mode !== "off") throw new Error(`KEYWARD_METRICS must be on or off, got ${env.KEYWARD_METRICS}`);
  const token = env.KEYWARD_METRICS_TOKEN || undefined;
  // The token's value never appears in an error message.
  if (token !== undefined && !/^[\x21-\x7e]{16,512}$/.test(token)) {
    throw new Error("KEYWARD_METRICS_TOKEN must be 16 to 512 printable characters without spaces");
  }
  if (mode === "off") return { mode: "off" };
  return token === undefined ? { mode: "open" } : { mode: "token", token };
}
