import { describe, expect, it } from "vitest";
import { createLocalInvalidationBus } from "../../src/store/invalidation-bus.js";
import { createLimitConfigCache } from "../../src/services/ratelimits/limit-config-cache.js";
import type { RatelimitNamespaceRecord, RatelimitOverrideRecord } from "../../src/store/ports/ratelimits.js";

const clock = { now: () => 1_000 };
const namespace: RatelimitNamespaceRecord = { id: "rlns_1", workspaceId: "ws_1", name: "api", createdAt: 1 };
const override = (limit: number): RatelimitOverrideRecord => ({
  id: `rlor_${limit}`, workspaceId: "ws_1", namespaceId: "rlns_1", identifier: "u1", limit, duration: 60_000, createdAt: 1,
});

/** A store read that counts its calls and answers what `answer` holds at the time. */
function reader<T>(answer: { value: T }) {
  const read = async () => {
    read.calls++;
    return answer.value;
  };
  read.calls = 0;
  return read;
}

describe("limit config cache", () => {
  it("reads a found namespace once, per workspace and ref, and never caches a missing one", async () => {
    const cache = createLimitConfigCache({ clock, bus: createLocalInvalidationBus() });
    const found = reader<RatelimitNamespaceRecord | undefined>({ value: namespace });
    expect(await cache.namespace("ws_1", "api", found)).toEqual(namespace);
    expect(await cache.namespace("ws_1", "api", found)).toEqual(namespace);
    expect(found.calls).toBe(1);
    await cache.namespace("ws_2", "api", found);
    expect(found.calls).toBe(2);
    const missing = reader<RatelimitNamespaceRecord | undefined>({ value: undefined });
    expect(await cache.namespace("ws_1", "later", missing)).toBeUndefined();
    expect(await cache.namespace("ws_1", "later", missing)).toBeUndefined();
    expect(missing.calls).toBe(2);
  });

  it("serves override candidates from the cache until an override of that namespace changes", async () => {
    const cache = createLimitConfigCache({ clock, bus: createLocalInvalidationBus() });
    const stored = { value: [override(5)] };
    const read = reader(stored);
    const other = reader({ value: [] as RatelimitOverrideRecord[] });
    expect(await cache.overrideCandidates("rlns_1", "u1", read)).toEqual([override(5)]);
    await cache.overrideCandidates("rlns_2", "u1", other);
    stored.value = [override(7)];
    expect(await cache.overrideCandidates("rlns_1", "u1", read)).toEqual([override(5)]);
    expect(read.calls).toBe(1);
    cache.overridesChanged("rlns_1");
    expect(await cache.overrideCandidates("rlns_1", "u1", read)).toEqual([override(7)]);
    expect(read.calls).toBe(2);
    await cache.overrideCandidates("rlns_2", "u1", other);
    expect(other.calls).toBe(1); // another namespace keeps its entries
  });

  it("drops a namespace's candidates when another instance says they changed, and everything on `all`", async () => {
    const bus = createLocalInvalidationBus();
    const cache = createLimitConfigCache({ clock, bus });
    const read = reader({ value: [override(5)] });
    await cache.overrideCandidates("rlns_1", "u1", read);
    bus.publish({ kind: "ratelimit-overrides", namespaceId: "rlns_1" });
    await cache.overrideCandidates("rlns_1", "u1", read);
    expect(read.calls).toBe(2);
    const found = reader<RatelimitNamespaceRecord | undefined>({ value: namespace });
    await cache.namespace("ws_1", "api", found);
    bus.publish({ kind: "all" });
    await cache.overrideCandidates("rlns_1", "u1", read);
    await cache.namespace("ws_1", "api", found);
    expect([read.calls, found.calls]).toEqual([3, 2]);
  });

  it("never serves candidates read before a change that landed while the read was under way", async () => {
    const cache = createLimitConfigCache({ clock, bus: createLocalInvalidationBus() });
    let release!: () => void;
    const slow = async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return [override(5)]; // what the store held before the change
    };
    const pending = cache.overrideCandidates("rlns_1", "u1", slow);
    cache.overridesChanged("rlns_1"); // an override is set meanwhile
    release();
    expect(await pending).toEqual([override(5)]);
    const fresh = reader({ value: [override(9)] });
    expect(await cache.overrideCandidates("rlns_1", "u1", fresh)).toEqual([override(9)]);
    expect(fresh.calls).toBe(1);
  });
});
