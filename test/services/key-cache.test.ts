import { describe, expect, it } from "vitest";
import { createKeyCache, type VerifiableKey } from "../../src/services/key-cache.js";
import { createLocalInvalidationBus } from "../../src/store/invalidation-bus.js";

const clock = { now: () => 1_000 };
const entry = (name: string) => ({ key: { id: "key_1", name }, api: { id: "api_1" } }) as unknown as VerifiableKey;

describe("key cache", () => {
  it("caches what was read when no invalidation came in between", () => {
    const cache = createKeyCache({ clock, bus: createLocalInvalidationBus() });
    const readAt = cache.epoch;
    cache.set("h1", entry("fresh"), readAt);
    expect(cache.get("h1")?.key.name).toBe("fresh");
    expect(cache.size).toBe(1);
  });

  it("does not cache a record read before an invalidation that arrived while the read was under way", () => {
    const bus = createLocalInvalidationBus();
    const cache = createKeyCache({ clock, bus });
    const readAt = cache.epoch; // a verification misses and starts reading the store
    bus.publish({ kind: "hash", hash: "h1" }); // another instance changes the key meanwhile
    cache.set("h1", entry("stale"), readAt);
    expect(cache.get("h1")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("drops every entry on an `all` invalidation and one entry on a `hash` one", () => {
    const cache = createKeyCache({ clock, bus: createLocalInvalidationBus() });
    cache.set("h1", entry("one"), cache.epoch);
    cache.set("h2", entry("two"), cache.epoch);
    cache.invalidate({ kind: "hash", hash: "h1" });
    expect(cache.get("h1")).toBeUndefined();
    expect(cache.get("h2")?.key.name).toBe("two");
    cache.invalidate({ kind: "all" });
    expect(cache.size).toBe(0);
  });

  it("keeps at most maxEntries, evicting the least recently used", () => {
    const cache = createKeyCache({ clock, bus: createLocalInvalidationBus(), maxEntries: 2 });
    cache.set("h1", entry("one"), cache.epoch);
    cache.set("h2", entry("two"), cache.epoch);
    cache.get("h1");
    cache.set("h3", entry("three"), cache.epoch);
    expect(cache.get("h2")).toBeUndefined();
    expect(cache.get("h1")?.key.name).toBe("one");
    expect(cache.get("h3")?.key.name).toBe("three");
  });

  it("keeps the recency order exact when one key is used over and over between others", () => {
    const cache = createKeyCache({ clock, bus: createLocalInvalidationBus(), maxEntries: 3 });
    cache.set("h1", entry("one"), cache.epoch);
    cache.set("h2", entry("two"), cache.epoch);
    cache.get("h1");
    cache.get("h1");
    cache.set("h3", entry("three"), cache.epoch);
    cache.get("h2");
    cache.get("h2");
    cache.get("h1");
    cache.set("h4", entry("four"), cache.epoch); // evicts h3, the least recently used
    expect(cache.get("h3")).toBeUndefined();
    expect(["h1", "h2", "h4"].map((h) => cache.get(h)?.key.name)).toEqual(["one", "two", "four"]);
    cache.set("h5", entry("five"), cache.epoch); // h1 is now the least recently used
    expect(cache.get("h1")).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  it("load reads through once, caches a missing key only when asked, and not a read an invalidation overtook", async () => {
    const bus = createLocalInvalidationBus();
    const cache = createKeyCache({ clock, bus });
    let reads = 0;
    const found = async () => (reads++, entry("read"));
    const missing = async () => (reads++, undefined);
    expect((await cache.load("h1", found, { cacheMissing: false }))?.key.name).toBe("read");
    expect((await cache.load("h1", found, { cacheMissing: false }))?.key.name).toBe("read");
    expect(await cache.load("h2", missing, { cacheMissing: false })).toBeUndefined();
    expect(await cache.load("h2", missing, { cacheMissing: true })).toBeUndefined();
    expect(await cache.load("h2", missing, { cacheMissing: true })).toBeUndefined();
    expect(reads).toBe(3);
    const overtaken = cache.load("h3", async () => {
      bus.publish({ kind: "hash", hash: "h3" }); // changed while the store was being read
      return entry("stale");
    }, { cacheMissing: false });
    expect((await overtaken)?.key.name).toBe("stale");
    expect(cache.get("h3")).toBeUndefined();
  });

  it("lookup answers a cached key (and a cached missing one) at once, without a promise, and a miss with a promise", async () => {
    const cache = createKeyCache({ clock, bus: createLocalInvalidationBus() });
    const hashesRead: string[] = [];
    const read = async (hash: string) => (hashesRead.push(hash), hash === "h1" ? entry("read") : undefined);
    const miss = cache.lookup("h1", read, { cacheMissing: true });
    expect(miss).toBeInstanceOf(Promise);
    expect((await miss)?.key.name).toBe("read");
    const hit = cache.lookup("h1", read, { cacheMissing: true });
    expect(hit).not.toBeInstanceOf(Promise);
    expect((hit as VerifiableKey).key.name).toBe("read");
    expect(await cache.lookup("h2", read, { cacheMissing: true })).toBeUndefined();
    expect(cache.lookup("h2", read, { cacheMissing: true })).toBeUndefined(); // cached as missing: no promise either
    expect(hashesRead).toEqual(["h1", "h2"]);
    expect(cache.stats()).toEqual({ hits: 2, misses: 2, size: 2 });
  });
});
