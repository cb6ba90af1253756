import { describe, expect, it } from "vitest";
import type { VerificationEventQuery } from "../../../src/store/ports/events.js";
import { keyAdmin, toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;

describe("keys.verifyKey events", () => {
  const kit = useVerifyKit();

  /** Flushes the event store and aggregates the default workspace's events of [since, since + span). */
  async function aggregate(since: number, filters: Partial<VerificationEventQuery> = {}, options: { span?: number; bucketMs?: number } = {}) {
    const { events } = kit.harness.keyward.stores;
    await events.flush();
    return events.aggregate({
      workspaceId: kit.harness.keyward.workspaceId, since, until: since + (options.span ?? HOUR), bucketMs: options.bucketMs ?? HOUR, ...filters,
    });
  }

  it("records every verification but NOT_FOUND, with exact counts per outcome, and filters by tag, key, api and outcome", async () => {
    const t0 = toNextWindow(kit.harness.clock, HOUR);
    const apiId = await kit.admin.api();
    const metered = await kit.admin.key(apiId, { credits: { remaining: 3 }, ratelimits: [{ name: "minute", limit: 4, duration: MINUTE, autoApply: true }] });
    const disabled = await kit.admin.key(apiId, { enabled: false });
    const codes: string[] = [];
    const key = metered.key;
    for (let i = 0; i < 3; i++) codes.push((await kit.verify("v2", { key, tags: ["path=/a"] })).code);
    codes.push((await kit.verify("v1", { key, tags: ["path=/b"] })).code);
    codes.push((await kit.verify("v2", { key, cost: 0, tags: ["path=/a", "region=eu"] })).code);
    codes.push((await kit.verify("legacy", { key })).code);
    codes.push((await kit.verify("v2", { key, tags: ["path=/b"] })).code);
    codes.push((await kit.verify("v1", { key: disabled.key, tags: ["path=/a"] })).code);
    for (const via of ["v1", "v2", "legacy"] as const) codes.push((await kit.verify(via, { key: `unknown_${via}_key`, tags: ["path=/a"] })).code);
    expect(codes).toEqual([
      "VALID", "VALID", "VALID", "USAGE_EXCEEDED", "VALID", "RATE_LIMITED", "RATE_LIMITED", "DISABLED", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND",
    ]);

    expect(await aggregate(t0)).toEqual([
      { time: t0, outcome: "DISABLED", count: 1 },
      { time: t0, outcome: "RATE_LIMITED", count: 2 },
      { time: t0, outcome: "USAGE_EXCEEDED", count: 1 },
      { time: t0, outcome: "VALID", count: 4 },
    ]);
    expect(await aggregate(t0, { keyId: metered.keyId })).toEqual([
      { time: t0, outcome: "RATE_LIMITED", count: 2 },
      { time: t0, outcome: "USAGE_EXCEEDED", count: 1 },
      { time: t0, outcome: "VALID", count: 4 },
    ]);
    expect(await aggregate(t0, { tag: "path=/a" })).toEqual([
      { time: t0, outcome: "DISABLED", count: 1 },
      { time: t0, outcome: "VALID", count: 4 },
    ]);
    expect(await aggregate(t0, { tag: "path=/b" })).toEqual([
      { time: t0, outcome: "RATE_LIMITED", count: 1 },
      { time: t0, outcome: "USAGE_EXCEEDED", count: 1 },
    ]);
    expect(await aggregate(t0, { tag: "region=eu" })).toEqual([{ time: t0, outcome: "VALID", count: 1 }]);
    expect(await aggregate(t0, { outcome: "NOT_FOUND" })).toEqual([]);
    expect(await aggregate(t0, { outcome: "RATE_LIMITED", apiId })).toEqual([{ time: t0, outcome: "RATE_LIMITED", count: 2 }]);
    expect(await aggregate(t0, { apiId: "api_someOtherApi1" })).toEqual([]);
  });

  it("buckets events by the time the verification happened", async () => {
    const { clock } = kit.harness;
    const t0 = toNextWindow(clock, HOUR);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 2 } });
    await kit.verify("v2", { key });
    clock.set(t0 + 2 * MINUTE + 5);
    await kit.verify("v2", { key });
    await kit.verify("v1", { key });
    clock.set(t0 + 5 * MINUTE);
    await kit.verify("v2", { key });
    expect(await aggregate(t0, { keyId }, { bucketMs: MINUTE })).toEqual([
      { time: t0, outcome: "VALID", count: 1 },
      { time: t0 + 2 * MINUTE, outcome: "USAGE_EXCEEDED", count: 1 },
      { time: t0 + 2 * MINUTE, outcome: "VALID", count: 1 },
      { time: t0 + 5 * MINUTE, outcome: "USAGE_EXCEEDED", count: 1 },
    ]);
    expect(await aggregate(t0, { keyId }, { span: 5 * MINUTE, bucketMs: HOUR })).toEqual([
      { time: t0, outcome: "USAGE_EXCEEDED", count: 1 },
      { time: t0, outcome: "VALID", count: 2 },
    ]);
  });

  it("records the identity, EXPIRED and INSUFFICIENT_PERMISSIONS, and nothing for refused (4xx) or hidden (v2 NOT_FOUND) requests", async () => {
    const { clock } = kit.harness;
    const t0 = toNextWindow(clock, HOUR);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { externalId: "user_events", expires: t0 + 10 * MINUTE, permissions: ["p"] });
    const identityId = (await kit.admin.get(keyId)).identity.id;
    await kit.verify("v2", { key, permissions: { v1: "p", v2: "p" } });
    await kit.verify("v1", { key, permissions: { v1: "q", v2: "q" } });
    // Refused before any outcome: unknown limit name (v1 400, v2 412), bad tag list.
    expect((await kit.verifier.send("v1", { key, ratelimits: [{ name: "nope" }] })).status).toBe(400);
    expect((await kit.verifier.send("v2", { key, ratelimits: [{ name: "nope" }] })).status).toBe(412);
    expect((await kit.verifier.send("v2", { key, tags: Array(21).fill("t") })).status).toBe(400);
    // Another workspace's root key cannot see the key: NOT_FOUND, recorded nowhere.
    const other = await kit.harness.seed.workspace("events-other");
    expect((await kit.verify("v2", { key }, { rootKey: other.rootKey.key })).code).toBe("NOT_FOUND");
    clock.set(t0 + 10 * MINUTE);
    await kit.verify("legacy", { key });
    expect(await aggregate(t0, { identityId })).toEqual([
      { time: t0, outcome: "EXPIRED", count: 1 },
      { time: t0, outcome: "INSUFFICIENT_PERMISSIONS", count: 1 },
      { time: t0, outcome: "VALID", count: 1 },
    ]);
    await kit.harness.keyward.stores.events.flush();
    expect(await kit.harness.keyward.stores.events.aggregate({ workspaceId: other.workspaceId, since: t0, until: t0 + HOUR, bucketMs: HOUR })).toEqual([]);
    // The other workspace's own keys are recorded under that workspace only.
    const theirs = keyAdmin(kit.harness.keyward.baseUrl, other.rootKey.key);
    const theirKey = await theirs.key(await theirs.api("their-api"));
    await kit.verify("v2", { key: theirKey.key }, { rootKey: other.rootKey.key });
    await kit.harness.keyward.stores.events.flush();
    expect(await kit.harness.keyward.stores.events.aggregate({ workspaceId: other.workspaceId, since: t0, until: t0 + HOUR, bucketMs: HOUR }))
      .toEqual([{ time: t0, outcome: "VALID", count: 1 }]);
  });
});
