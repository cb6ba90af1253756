import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.updateIdentity concurrency", () => {
  const harness = useKeyward();

  it("concurrent updates of different fields all land: none writes back what another changed", async () => {
    const created = await harness.rest.v2("identities.createIdentity", { externalId: "concurrent", meta: { plan: "free" } }, harness.keyward.rootKey);
    const id = created.body.data.identityId as string;
    // Each update names one field (the update mask): meta updates and rate-limit updates race each other.
    const updates = Array.from({ length: 8 }, (_, i) => i % 2 === 0
      ? { identity: id, meta: { plan: `plan_${i}` } }
      : { identity: id, ratelimits: [{ name: `limit_${i}`, limit: i, duration: 1000 }] });
    const responses = await Promise.all(updates.map((body) => harness.rest.v2("identities.updateIdentity", body, harness.keyward.rootKey)));
    expect(responses.map((r) => r.status)).toEqual(updates.map(() => 200));

    const stored = (await harness.keyward.documents.identities.get(harness.keyward.workspaceId, id))!;
    // Every update was applied to the identity as the previous one left it: 8 writes, so revision 8.
    expect(stored.revision).toBe(8);
    expect(stored.meta?.plan).toMatch(/^plan_[0246]$/);
    expect(stored.ratelimits.map((r) => r.name)).toEqual([expect.stringMatching(/^limit_[1357]$/)]);
  });
});
