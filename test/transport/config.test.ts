import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readConfig, trustedProxiesOf } from "../../src/config.js";

describe("readConfig", () => {
  it("defaults to 127.0.0.1:8080, ./data, the embedded stores, no root key or encryption key", () => {
    expect(readConfig({})).toEqual({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "./data",
      mongodbUrl: undefined,
      redisUrl: undefined,
      redisReplicaAcks: 0,
      rootKey: undefined,
      encryptionKey: undefined,
      docsUrl: "https://keyward.dev/docs",
      shutdownGraceMs: 10_000,
      limits: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 10_000, maxConcurrentStreams: 100 },
      logLevel: "info",
      logSampleRate: 1,
      metrics: { mode: "open" },
      eventsRetentionDays: 90,
      eventsMaxStored: 10_000_000,
      trustedProxies: [],
      idempotencyWindowMs: 3_600_000,
      webhooks: { allowPrivate: false, retentionDays: 7, retryScale: 1 },
    });
  });

  it("refuses webhook settings that cannot work, naming the variable", () => {
    expect(() => readConfig({ KEYWARD_WEBHOOKS_ALLOW_PRIVATE: "yes" })).toThrow("KEYWARD_WEBHOOKS_ALLOW_PRIVATE must be true or false");
    expect(() => readConfig({ KEYWARD_WEBHOOKS_RETRY_SCALE: "0" })).toThrow("KEYWARD_WEBHOOKS_RETRY_SCALE");
    expect(() => readConfig({ KEYWARD_WEBHOOKS_RETRY_SCALE: "2" })).toThrow("KEYWARD_WEBHOOKS_RETRY_SCALE");
    expect(() => readConfig({ KEYWARD_WEBHOOKS_RETENTION_DAYS: "0" })).toThrow("KEYWARD_WEBHOOKS_RETENTION_DAYS");
  });

  it("reads every variable it documents", () => {
    const key = randomBytes(32);
    const config = readConfig({
      PORT: "9090", HOST: "0.0.0.0", KEYWARD_DATA_DIR: "/var/lib/keyward", MONGODB_URL: "mongodb://db:27017/keyward",
      REDIS_URL: "redis://cache:6379", KEYWARD_ROOT_KEY: "kw_root_0123456789abcdef", KEYWARD_ENCRYPTION_KEY: key.toString("base64"),
      KEYWARD_DOCS_URL: "https://docs.example.com/keyward//", KEYWARD_SHUTDOWN_GRACE_MS: "2500",
      KEYWARD_HEADERS_TIMEOUT_MS: "5000", KEYWARD_REQUEST_TIMEOUT_MS: "20000", KEYWARD_MAX_CONNECTIONS: "500", KEYWARD_MAX_STREAMS: "50",
      KEYWARD_LOG_LEVEL: "debug", KEYWARD_LOG_SAMPLE_RATE: "0.25", KEYWARD_METRICS: "on", KEYWARD_METRICS_TOKEN: "metrics_token_0123456789",
      KEYWARD_REDIS_REPLICA_ACKS: "1", KEYWARD_EVENTS_RETENTION_DAYS: "30", KEYWARD_EVENTS_MAX_STORED: "2000000", KEYWARD_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
      KEYWARD_IDEMPOTENCY_WINDOW_SECONDS: "600",
      KEYWARD_WEBHOOKS_ALLOW_PRIVATE: "true", KEYWARD_WEBHOOKS_RETENTION_DAYS: "3", KEYWARD_WEBHOOKS_RETRY_SCALE: "0.001",
    });
    expect(config).toEqual({
      port: 9090, host: "0.0.0.0", dataDir: "/var/lib/keyward", mongodbUrl: "mongodb://db:27017/keyward",
      redisUrl: "redis://cache:6379", redisReplicaAcks: 1, rootKey: "kw_root_0123456789abcdef", encryptionKey: key,
      docsUrl: "https://docs.example.com/keyward", shutdownGraceMs: 2500, eventsRetentionDays: 30, eventsMaxStored: 2_000_000,
      limits: { headersTimeoutMs: 5000, requestTimeoutMs: 20_000, maxConnections: 500, maxConcurrentStreams: 50 },
      logLevel: "debug", logSampleRate: 0.25, metrics: { mode: "token", token: "metrics_token_0123456789" },
      trustedProxies: trustedProxiesOf("10.0.0.0/8,::1"), idempotencyWindowMs: 600_000,
      webhooks: { allowPrivate: true, retentionDays: 3, retryScale: 0.001 },
    });
    expect(config.trustedProxies.map(([network, bits]) => `${network.toString()}/${bits}`)).toEqual(["10.0.0.0/8", "::1/128"]);
  });

  it("reads KEYWARD_TRUSTED_PROXIES as comma-separated addresses and CIDR ranges, and refuses a bad entry by name", () => {
    expect(trustedProxiesOf(" 192.0.2.1 ,, 2001:db8::/32,").map(([network, bits]) => `${network.toString()}/${bits}`)).toEqual(["192.0.2.1/32", "2001:db8::/32"]);
    expect(trustedProxiesOf("")).toEqual([]);
    for (const bad of ["proxy.internal", "10.0.0.0/40", "10.0.0.1 10.0.0.2"]) {
      expect(() => readConfig({ KEYWARD_TRUSTED_PROXIES: `10.0.0.1,${bad}` })).toThrow(`KEYWARD_TRUSTED_PROXIES: ${JSON.stringify(bad)} is not an IPv4 or IPv6 address or CIDR range`);
    }
  });

  it("refuses a shutdown grace that is not a whole number of milliseconds", () => {
    expect(() => readConfig({ KEYWARD_SHUTDOWN_GRACE_MS: "-1" })).toThrow(/KEYWARD_SHUTDOWN_GRACE_MS must be a whole number/);
    expect(() => readConfig({ KEYWARD_SHUTDOWN_GRACE_MS: "soon" })).toThrow(/KEYWARD_SHUTDOWN_GRACE_MS/);
    expect(readConfig({ KEYWARD_SHUTDOWN_GRACE_MS: "0" }).shutdownGraceMs).toBe(0);
  });

  it("refuses connection bounds that are not positive whole numbers, or a request timeout below the headers timeout", () => {
    for (const name of ["KEYWARD_HEADERS_TIMEOUT_MS", "KEYWARD_REQUEST_TIMEOUT_MS", "KEYWARD_MAX_CONNECTIONS", "KEYWARD_MAX_STREAMS"]) {
      for (const raw of ["0", "-5", "1.5", "many"]) {
        expect(() => readConfig({ [name]: raw })).toThrow(`${name} must be a whole number`);
      }
    }
    expect(() => readConfig({ KEYWARD_HEADERS_TIMEOUT_MS: "5000", KEYWARD_REQUEST_TIMEOUT_MS: "4000" }))
      .toThrow("KEYWARD_REQUEST_TIMEOUT_MS must not be shorter than KEYWARD_HEADERS_TIMEOUT_MS");
  });

  it("treats empty MONGODB_URL, REDIS_URL and KEYWARD_ENCRYPTION_KEY as unset", () => {
    const config = readConfig({ MONGODB_URL: "", REDIS_URL: "", KEYWARD_ENCRYPTION_KEY: "" });
    expect([config.mongodbUrl, config.redisUrl, config.encryptionKey]).toEqual([undefined, undefined, undefined]);
  });

  it("accepts ports 0 to 65535 and refuses anything else", () => {
    expect(readConfig({ PORT: "0" }).port).toBe(0);
    expect(readConfig({ PORT: "65535" }).port).toBe(65535);
    for (const PORT of ["abc", "65536", "-1", "80.5", "8080x"]) {
      expect(() => readConfig({ PORT })).toThrow(`PORT must be a port number, got ${PORT}`);
    }
  });

  it("refuses an encryption key that is not 32 bytes of base64", () => {
    for (const bad of [randomBytes(31).toString("base64"), randomBytes(33).toString("base64"), "not base64 at all!", "c2hvcnQ="]) {
      expect(() => readConfig({ KEYWARD_ENCRYPTION_KEY: bad })).toThrow("KEYWARD_ENCRYPTION_KEY must be 32 bytes, base64-encoded");
    }
  });

  it("refuses a root key that is short, long, or contains spaces or control characters", () => {
    for (const bad of ["short", "x".repeat(513), "kw_root_with space_inside", "kw_root_0123456789\n"]) {
      expect(() => readConfig({ KEYWARD_ROOT_KEY: bad })).toThrow("KEYWARD_ROOT_KEY must be 16 to 512 printable characters");
    }
    expect(readConfig({ KEYWARD_ROOT_KEY: "x".repeat(16) }).rootKey).toBe("x".repeat(16));
    expect(readConfig({ KEYWARD_ROOT_KEY: "x".repeat(512) }).rootKey).toBe("x".repeat(512));
  });
});
