import { describe, expect, it } from "vitest";
import { manualClock } from "../../support/keyward.js";
import { useTwoInstances } from "../../support/second-instance.js";

/** Standalone limits cache namespaces and overrides; these show a change on one instance reaching the other. */
describe("ratelimit overrides across instances through Redis", () => {
  // A frozen clock: the cache's TTL never expires an entry here, so only invalidation can.
  const clock = manualClock(Date.UTC(2030, 0, 1));
  const pair = useTwoInstances(clock);

  const call = async (baseUrl: string, operation: string, body: object) => {
    const res = await fetch(`${baseUrl}/v2/${operation}`, {
      method: "POST",
      headers: { authorization: `Bearer ${pair.a.rootKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, operation).toBe(200);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  };
  const limitOnB = (namespace: string, identifier: string) =>
    call(pair.b.baseUrl, "ratelimit.limit", { namespace, identifier, limit: 100, duration: 60_000, cost: 0 });

  /** Limits on B until its answer has `limit`; the bound only stops a test that would never pass. */
  async function eventuallyOnB(namespace: string, identifier: string, limit: number): Promise<Record<string, unknown>> {
    const started = Date.now();
    let last: Record<string, unknown> = {};
    while (Date.now() - started < 10_000) {
      last = await limitOnB(namespace, identifier);
      if (last.limit === limit) return last;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`instance B still answered limit ${String(last.limit)}, not ${limit}`);
  }

  it("an override set, changed and deleted on A applies on B once told, exact and pattern alike", async () => {
    const namespace = "shared-overrides";
    expect(await limitOnB(namespace, "user_1")).toMatchObject({ limit: 100, success: true }); // B caches: no override
    const { overrideId } = await call(pair.a.baseUrl, "ratelimit.setOverride", { namespace, identifier: "user_1", limit: 3, duration: 60_000 });
    expect(await eventuallyOnB(namespace, "user_1", 3)).toMatchObject({ overrideId });
    await call(pair.a.baseUrl, "ratelimit.setOverride", { namespace, identifier: "user_1", limit: 4, duration: 60_000 });
    await eventuallyOnB(namespace, "user_1", 4);
    await call(pair.a.baseUrl, "ratelimit.deleteOverride", { namespace, identifier: "user_1" });
    expect(await eventuallyOnB(namespace, "user_1", 100)).not.toHaveProperty("overrideId");

    expect(await limitOnB(namespace, "team_7")).toMatchObject({ limit: 100 });
    await call(pair.a.baseUrl, "ratelimit.setOverride", { namespace, identifier: "team_*", limit: 9, duration: 60_000 });
    await eventuallyOnB(namespace, "team_7", 9);
  });

  it("an override written to the store alone (no instance told) is not seen, which shows B reads its cache", async () => {
    const namespace = "cached-overrides";
    expect(await limitOnB(namespace, "user_2")).toMatchObject({ limit: 100 });
    const ns = await pair.a.documents.ratelimitNamespaces.findByName(pair.a.workspaceId, namespace);
    await pair.a.documents.ratelimitOverrides.set({
      id: "rlor_direct", workspaceId: pair.a.workspaceId, namespaceId: ns!.id, identifier: "user_2", limit: 1, duration: 60_000, createdAt: clock.now(),
    });
    expect(await limitOnB(namespace, "user_2")).toMatchObject({ limit: 100 });
    clock.advance(60_000); // past the cache's TTL
    expect(await limitOnB(namespace, "user_2")).toMatchObject({ limit: 1, overrideId: "rlor_direct" });
  });
});
