import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.js";
import { parseRedisUrl, redactRedisUrl, RedisUrlError } from "../../src/store/redis/redis-url.js";

describe("REDIS_URL forms", () => {
  it("passes a single-server URL through unchanged", () => {
    expect(parseRedisUrl("redis://:pw@10.0.0.1:6380/2")).toEqual({ kind: "single", url: "redis://:pw@10.0.0.1:6380/2" });
    expect(parseRedisUrl("rediss://cache.example")).toEqual({ kind: "single", url: "rediss://cache.example" });
  });

  it("reads a cluster's seed nodes, credentials and TLS; a missing port is 6379", () => {
    expect(parseRedisUrl("redis+cluster://127.0.0.1:7000,127.0.0.1:7001,[::1]:7002,redis-3")).toEqual({
      kind: "cluster",
      nodes: [
        { host: "127.0.0.1", port: 7000 },
        { host: "127.0.0.1", port: 7001 },
        { host: "::1", port: 7002 },
        { host: "redis-3", port: 6379 },
      ],
      tls: false,
    });
    expect(parseRedisUrl("rediss+cluster://app:p%40ss@a:1,b:2/")).toEqual({
      kind: "cluster",
      nodes: [{ host: "a", port: 1 }, { host: "b", port: 2 }],
      username: "app",
      password: "p@ss",
      tls: true,
    });
  });

  it("reads sentinels, the master name, the database and sentinel credentials; a missing port is 26379", () => {
    expect(parseRedisUrl("redis+sentinel://:pw@s1:26380,s2/mymaster/3?sentinelPassword=sp")).toEqual({
      kind: "sentinel",
      sentinels: [{ host: "s1", port: 26380 }, { host: "s2", port: 26379 }],
      masterName: "mymaster",
      db: 3,
      password: "pw",
      sentinelPassword: "sp",
      tls: false,
    });
    expect(parseRedisUrl("redis+sentinel://s1:1/m")).toMatchObject({ kind: "sentinel", masterName: "m", db: 0 });
  });

  it("refuses what cannot work, with a reason and without the password", () => {
    const cases: [string, RegExp][] = [
      ["http://a:1", /must start with redis:\/\//],
      ["redis+cluster://", /invalid host:port/],
      ["redis+cluster://a:1,,b:2", /invalid host:port in REDIS_URL: ""/],
      ["redis+cluster://u:secret@a:99999", /invalid host:port in REDIS_URL: "a:99999"/],
      ["redis+cluster://a:1/0", /takes no path/],
      ["redis+sentinel://u:secret@a:1", /needs the master name/],
      ["redis+sentinel://a:1/m/x", /invalid database number/],
      ["redis+sentinel://a:1/m/0/extra", /needs the master name/],
    ];
    for (const [url, reason] of cases) {
      let error: unknown;
      try {
        parseRedisUrl(url);
      } catch (caught) {
        error = caught;
      }
      expect(error, url).toBeInstanceOf(RedisUrlError);
      expect((error as Error).message, url).toMatch(reason);
      expect((error as Error).message).not.toContain("secret");
    }
  });

  it("stops the configuration on a malformed REDIS_URL and accepts every documented form", () => {
    expect(() => readConfig({ REDIS_URL: "redis+cluster://a:1,b:x" })).toThrow(RedisUrlError);
    for (const url of ["redis://a:1", "redis+cluster://a:1,b:2", "redis+sentinel://a:1,b:2/mymaster"]) {
      expect(readConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
  });

  it("reads KEYWARD_REDIS_REPLICA_ACKS: 0 by default, a whole number up to 16, else a clear error", () => {
    expect(readConfig({}).redisReplicaAcks).toBe(0);
    expect(readConfig({ KEYWARD_REDIS_REPLICA_ACKS: "1" }).redisReplicaAcks).toBe(1);
    for (const bad of ["-1", "1.5", "x", "17"]) {
      expect(() => readConfig({ KEYWARD_REDIS_REPLICA_ACKS: bad })).toThrow(`KEYWARD_REDIS_REPLICA_ACKS must be a whole number from 0 to 16, got ${bad}`);
    }
  });

  it("redacts passwords in every form", () => {
    expect(redactRedisUrl("redis://:secret@a:1/0")).toBe("redis://:***@a:1/0");
    expect(redactRedisUrl("rediss+cluster://app:secret@a:1,b:2")).toBe("rediss+cluster://app:***@a:1,b:2");
    expect(redactRedisUrl("redis+sentinel://a:1/m?sentinelPassword=secret&x=1")).toBe("redis+sentinel://a:1/m?sentinelPassword=***&x=1");
    expect(redactRedisUrl("redis://a:1")).toBe("redis://a:1");
  });
});
