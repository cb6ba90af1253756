import { describe, expect, it } from "vitest";
import { okVia, seedNamespace, seedOverride } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID } from "../../support/vias.js";

const MINUTE = 60_000;

describe("ratelimit.limit", () => {
  const harness = useKeyward();
  const windowEnd = (duration: number) => Math.floor(harness.clock.now() / duration) * duration + duration;

  it("passes until the limit is used up, then denies with remaining 0, on every transport", async () => {
    for (const via of ALL_VIAS) {
      const input = { namespace: "passes", identifier: `user-${via}`, limit: 3, duration: MINUTE };
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await okVia(harness, via, "ratelimit.limit", input));
      expect(results.map((r) => [r.success, r.remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0]]);
      expect(results.every((r) => r.limit === 3 && r.reset === windowEnd(MINUTE))).toBe(true);
    }
  });

  it("answers v2 {meta, data:{limit, remaining, reset, success}} and v1 the bare {limit, remaining, reset, success}", async () => {
    const v2 = await harness.rest.v2("ratelimit.limit", { namespace: "shapes", identifier: "a", limit: 5, duration: MINUTE }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: { limit: 5, remaining: 4, reset: windowEnd(MINUTE), success: true },
    });
    const v1 = await harness.rest.v1Post("ratelimits.limit", { namespace: "shapes", identifier: "a", limit: 5, duration: MINUTE, async: true, meta: { x: 1 } }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ limit: 5, remaining: 3, reset: windowEnd(MINUTE), success: true });
  });

  it("v1 without a namespace counts in the namespace named `default`", async () => {
    await okVia(harness, "v1", "ratelimit.limit", { identifier: "dflt", limit: 10, duration: MINUTE });
    const v2 = await okVia(harness, "v2", "ratelimit.limit", { namespace: "default", identifier: "dflt", limit: 10, duration: MINUTE });
    expect(v2.remaining).toBe(8);
  });

  it("cost 0 reads the window without counting; a cost above what is left is denied and counts nothing", async () => {
    const input = { namespace: "costs", identifier: "u", limit: 10, duration: MINUTE };
    expect((await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 7 })).remaining).toBe(3);
    expect(await okVia(harness, "connect", "ratelimit.limit", { ...input, cost: 0 })).toMatchObject({ success: true, remaining: 3 });
    expect(await okVia(harness, "grpc", "ratelimit.limit", { ...input, cost: 4 })).toMatchObject({ success: false, remaining: 3 });
    expect(await okVia(harness, "v1", "ratelimit.limit", { ...input, cost: 3 })).toMatchObject({ success: true, remaining: 0 });
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 0 })).toMatchObject({ success: true, remaining: 0 });
  });

  it("takes identifiers and namespaces of up to 512 characters and costs above 10^9 (Unkey's bounds, F8, F9)", async () => {
    for (const identifier of ["a".repeat(300), "a".repeat(512)]) {
      const response = await harness.rest.v2("ratelimit.limit", { namespace: "ns1", identifier, limit: 1, duration: 1000 }, harness.keyward.rootKey);
      expect({ status: response.status, success: response.body.data?.success }).toEqual({ status: 200, success: true });
    }
    const long = await harness.rest.v2("ratelimit.limit", { namespace: "n".repeat(512), identifier: "u", limit: 1, duration: 1000 }, harness.keyward.rootKey);
    expect(long.status).toBe(200);
    const costly = await harness.rest.v2("ratelimit.limit", {
      namespace: "ns1", identifier: "u", limit: 5_000_000_000, duration: 60_000, cost: 2_000_000_000,
    }, harness.keyward.rootKey);
    expect({ status: costly.status, success: costly.body.data.success, remaining: costly.body.data.remaining })
      .toEqual({ status: 200, success: true, remaining: 3_000_000_000 });
  });

  it("the window slides: the previous window's count fades out with time, as in verification", async () => {
    harness.clock.set(Math.ceil(harness.clock.now() / MINUTE) * MINUTE);
    const input = { namespace: "sliding", identifier: "u", limit: 10, duration: MINUTE };
    await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 10 });
    expect(await okVia(harness, "v2", "ratelimit.limit", input)).toMatchObject({ success: false, remaining: 0 });
    harness.clock.advance(MINUTE + MINUTE / 2); // half-way into the next window: half the previous count remains
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 0 })).toMatchObject({ remaining: 5 });
    harness.clock.advance(MINUTE);
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, cost: 0 })).toMatchObject({ remaining: 10, reset: windowEnd(MINUTE) });
  });

  it("creates an unknown namespace on first use, once, and then finds it by name or by id", async () => {
    const before = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "fresh.space");
    expect(before).toBeUndefined();
    await okVia(harness, "grpcWeb", "ratelimit.limit", { namespace: "fresh.space", identifier: "u", limit: 2, duration: MINUTE });
    const created = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "fresh.space");
    expect(created).toMatchObject({ name: "fresh.space", workspaceId: harness.keyward.workspaceId, id: expect.stringMatching(/^rlns_/) });
    const byId = await okVia(harness, "v2", "ratelimit.limit", { namespace: created!.id, identifier: "u", limit: 2, duration: MINUTE });
    expect(byId).toMatchObject({ success: true, remaining: 0 });
  });

  it("an exact override replaces limit and duration and is reported as overrideId (v2, RPC); v1 leaves it out", async () => {
    await seedNamespace(harness, "overridden");
    const overrideId = await seedOverride(harness, "overridden", "vip", 50, 2 * MINUTE);
    const input = { namespace: "overridden", identifier: "vip", limit: 1, duration: MINUTE };
    for (const via of ["v2", "connect", "grpc", "grpcWeb"] as const) {
      expect(await okVia(harness, via, "ratelimit.limit", input)).toMatchObject({ success: true, limit: 50, overrideId });
    }
    const v1 = await okVia(harness, "v1", "ratelimit.limit", input);
    expect(v1).toEqual({ limit: 50, remaining: 45, reset: windowEnd(2 * MINUTE), success: true });
    const plainUser = await okVia(harness, "v2", "ratelimit.limit", { ...input, identifier: "vip2" });
    expect(plainUser).toEqual({ limit: 1, remaining: 0, reset: windowEnd(MINUTE), success: true });
  });

  it("a wildcard override applies to matching identifiers; an exact one beats it; the most specific pattern wins", async () => {
    await seedNamespace(harness, "patterns");
    const broad = await seedOverride(harness, "patterns", "*", 2);
    const premium = await seedOverride(harness, "patterns", "premium_*", 20);
    const premiumGold = await seedOverride(harness, "patterns", "premium_gold_*", 200);
    const exact = await seedOverride(harness, "patterns", "premium_gold_7", 7);
    const check = (identifier: string) => okVia(harness, "v2", "ratelimit.limit", { namespace: "patterns", identifier, limit: 1, duration: MINUTE, cost: 0 });
    expect(await check("guest")).toMatchObject({ limit: 2, overrideId: broad });
    expect(await check("premium_1")).toMatchObject({ limit: 20, overrideId: premium });
    expect(await check("premium_gold_1")).toMatchObject({ limit: 200, overrideId: premiumGold });
    expect(await check("premium_gold_7")).toMatchObject({ limit: 7, overrideId: exact });
  });

  it("an override of limit 0 blocks every counting call", async () => {
    await seedNamespace(harness, "banned");
    await seedOverride(harness, "banned", "abuser", 0);
    expect(await okVia(harness, "v2", "ratelimit.limit", { namespace: "banned", identifier: "abuser", limit: 100, duration: MINUTE }))
      .toMatchObject({ success: false, limit: 0, remaining: 0 });
  });

  it("the same identifier in two namespaces counts separately", async () => {
    const input = { identifier: "shared", limit: 1, duration: MINUTE };
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, namespace: "ns-a" })).toMatchObject({ success: true });
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, namespace: "ns-b" })).toMatchObject({ success: true });
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...input, namespace: "ns-a" })).toMatchObject({ success: false });
  });

  it("a root key holding only ratelimit.<namespaceId>.limit may limit in that namespace", async () => {
    const id = await seedNamespace(harness, "granted");
    const { key } = await harness.seed.rootKey([`ratelimit.${id}.limit`]);
    for (const via of ALL_VIAS) {
      expect(await okVia(harness, via, "ratelimit.limit", { namespace: "granted", identifier: via, limit: 1, duration: MINUTE }, key))
        .toMatchObject({ success: true });
    }
  });
});
