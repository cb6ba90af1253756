import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { manualClock, startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { okVia } from "../../support/ratelimit.js";
import { closeRedis, createRedisConnection } from "../../../src/store/redis/connection.js";
import { hashedPart } from "../../../src/store/redis/keys.js";
import type { Harness } from "../../support/use-keyward.js";

const MINUTE = 60_000;

describe("ratelimit.limit and multiLimit on Redis counters judge as on the embedded store", () => {
  const clock = manualClock(Date.UTC(2030, 0, 1));
  let keyward: RunningKeyward;
  let harness: Harness;
  beforeAll(async () => {
    keyward = await startKeyward({ clock, redisUrl: inject("redisUrl") });
    harness = { keyward, clock } as Harness;
  });
  afterAll(() => keyward?.stop());

  it("counts, denies, reads with cost 0 and slides the window", async () => {
    const input = { namespace: "redis-sliding", identifier: "u", limit: 10, duration: MINUTE };
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 10 })).toMatchObject({ success: true, remaining: 0 });
    expect(await okVia(harness, "grpc", "ratelimit.limit", input)).toMatchObject({ success: false, remaining: 0 });
    clock.advance(MINUTE + MINUTE / 2);
    expect(await okVia(harness, "v1", "ratelimit.limit", { ...input, cost: 0 })).toMatchObject({ success: true, remaining: 5 });
    expect(await okVia(harness, "connect", "ratelimit.limit", { ...input, cost: 6 })).toMatchObject({ success: false, remaining: 5 });
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 5 })).toMatchObject({ success: true, remaining: 0 });
  });

  it("applies overrides and is all or nothing in multiLimit", async () => {
    await okVia(harness, "v2", "ratelimit.limit", { namespace: "redis-multi", identifier: "seed", limit: 1, duration: MINUTE, cost: 0 });
    const { overrideId } = await okVia(harness, "v2", "ratelimit.setOverride", { namespace: "redis-multi", identifier: "vip_*", limit: 3, duration: MINUTE });
    const a = { namespace: "redis-multi", identifier: "vip_1", limit: 1, duration: MINUTE };
    const b = { namespace: "redis-multi-b", identifier: "vip_1", limit: 1, duration: MINUTE };
    expect(await okVia(harness, "v2", "ratelimit.multiLimit", [a, b])).toMatchObject({ passed: true, limits: [{ limit: 3, remaining: 2, overrideId }, { remaining: 0 }] });
    expect(await okVia(harness, "v2", "ratelimit.multiLimit", [a, b])).toMatchObject({ passed: false, limits: [{ passed: true, remaining: 2 }, { passed: false }] });
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...a, cost: 0 })).toMatchObject({ remaining: 2 });
  });

  it("keeps every counter of a workspace's standalone limits under one hash tag: a multiLimit is one Cluster slot", async () => {
    await okVia(harness, "v2", "ratelimit.multiLimit", [
      { namespace: "slot-a", identifier: "alice", limit: 5, duration: MINUTE },
      { namespace: "slot-b", identifier: "bob", limit: 5, duration: 2 * MINUTE },
    ]);
    const ids = await Promise.all(["slot-a", "slot-b"].map(async (name) =>
      (await keyward.documents.ratelimitNamespaces.findByName(keyward.workspaceId, name))!.id));
    const redis = await createRedisConnection({ url: inject("redisUrl") });
    try {
      const keys = (await redis.keys("kw:*")).filter((key) => ids.some((id) => key.includes(id)));
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(new Set(keys.map(hashedPart))).toEqual(new Set([`rl/${keyward.workspaceId}`]));
    } finally {
      await closeRedis(redis);
    }
  });
});
