import { describe, expect, it } from "vitest";
import { okVia, seedNamespace, seedOverride } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, V2_AND_RPC } from "../../support/vias.js";

const MINUTE = 60_000;

describe("ratelimit.multiLimit", () => {
  const harness = useKeyward();
  const windowEnd = (duration: number) => Math.floor(harness.clock.now() / duration) * duration + duration;
  const left = async (check: Record<string, unknown>) => (await okVia(harness, "v2", "ratelimit.limit", { ...check, cost: 0 })).remaining;

  it("answers v2 to a bare JSON array with {meta, data:{passed, limits}} in request order", async () => {
    const checks = [
      { namespace: "multi-shape-a", identifier: "u", limit: 3, duration: MINUTE },
      { namespace: "multi-shape-b", identifier: "u", limit: 5, duration: 2 * MINUTE, cost: 2 },
    ];
    const response = await harness.rest.v2("ratelimit.multiLimit", checks, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: {
        passed: true,
        limits: [
          { namespace: "multi-shape-a", identifier: "u", limit: 3, remaining: 2, reset: windowEnd(MINUTE), passed: true },
          { namespace: "multi-shape-b", identifier: "u", limit: 5, remaining: 3, reset: windowEnd(2 * MINUTE), passed: true },
        ],
      },
    });
  });

  it("is all or nothing: when one check fails none is counted, and each check reports its own verdict, on every transport", async () => {
    for (const via of V2_AND_RPC) {
      const roomy = { namespace: "aon-roomy", identifier: via, limit: 10, duration: MINUTE };
      const tight = { namespace: "aon-tight", identifier: via, limit: 1, duration: MINUTE };
      expect((await okVia(harness, via, "ratelimit.multiLimit", { limits: [roomy, tight] })).passed).toBe(true);
      const denied = await okVia(harness, via, "ratelimit.multiLimit", { limits: [roomy, tight] });
      expect(denied).toMatchObject({
        passed: false,
        limits: [
          { namespace: "aon-roomy", identifier: via, passed: true, remaining: 9 },
          { namespace: "aon-tight", identifier: via, passed: false, remaining: 0 },
        ],
      });
      expect(await left(roomy)).toBe(9);
      expect(await left(tight)).toBe(0);
    }
  });

  it("counts in the same windows as ratelimit.limit for the same namespace and identifier", async () => {
    const check = { namespace: "shared-window", identifier: "u", limit: 4, duration: MINUTE };
    await okVia(harness, "v2", "ratelimit.limit", { ...check, cost: 3 });
    const result = await okVia(harness, "connect", "ratelimit.multiLimit", { limits: [check] });
    expect(result).toMatchObject({ passed: true, limits: [{ remaining: 0 }] });
    expect((await okVia(harness, "v2", "ratelimit.limit", check)).success).toBe(false);
  });

  it("applies each identifier's override and reports it; several identifiers of one namespace count apart", async () => {
    await seedNamespace(harness, "multi-overrides");
    const overrideId = await seedOverride(harness, "multi-overrides", "team_*", 100);
    const result = await okVia(harness, "grpc", "ratelimit.multiLimit", {
      limits: [
        { namespace: "multi-overrides", identifier: "team_1", limit: 1, duration: MINUTE },
        { namespace: "multi-overrides", identifier: "solo", limit: 1, duration: MINUTE },
      ],
    });
    expect(result.limits).toEqual([
      { namespace: "multi-overrides", identifier: "team_1", limit: 100, remaining: 99, reset: windowEnd(MINUTE), passed: true, overrideId },
      { namespace: "multi-overrides", identifier: "solo", limit: 1, remaining: 0, reset: windowEnd(MINUTE), passed: true },
    ]);
  });

  it("cost 0 checks pass without counting", async () => {
    const check = { namespace: "multi-zero", identifier: "u", limit: 1, duration: MINUTE, cost: 0 };
    for (let i = 0; i < 3; i++) expect((await okVia(harness, "v2", "ratelimit.multiLimit", [check])).passed).toBe(true);
    expect(await left(check)).toBe(1);
  });
});
