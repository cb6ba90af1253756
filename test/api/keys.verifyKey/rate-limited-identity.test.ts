import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey RATE_LIMITED by identity limits", () => {
  const kit = useVerifyKit();

  /** Two keys of one identity, with ratelimits written straight into the identity's document. */
  async function identityKeys(externalId: string, ratelimits: object[]) {
    const apiId = await kit.admin.api();
    const a = await kit.admin.key(apiId, { externalId });
    const b = await kit.admin.key(apiId, { externalId });
    const { documents, workspaceId } = kit.harness.keyward;
    const identity = await documents.identities.findByExternalId(workspaceId, externalId);
    if (!identity) throw new Error("identity not created");
    expect(await documents.identities.replace({ ...identity, ratelimits: ratelimits as any })).toBe(true);
    return { apiId, a, b, identity };
  }

  it("shares an identity's autoApply limit between all keys of that identity", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const seeded = { id: "rl_seededTeam1", name: "team", limit: 3, duration: MINUTE, autoApply: true };
    const { a, b, identity } = await identityKeys("team_shared", [seeded]);
    const codes: string[] = [];
    for (const key of [a.key, b.key, a.key, b.key, a.key]) codes.push((await kit.verify("v2", { key })).code);
    expect(codes).toEqual(["VALID", "VALID", "VALID", "RATE_LIMITED", "RATE_LIMITED"]);
    const result = await kit.verify("v2", { key: b.key });
    expect({ identity: result.payload.identity, ratelimits: result.payload.ratelimits }).toEqual({
      identity: { id: identity.id, externalId: "team_shared", meta: {}, ratelimits: [{ id: "rl_seededTeam1", name: "team", limit: 3, duration: MINUTE, autoApply: true }] },
      ratelimits: [{ exceeded: true, id: "rl_seededTeam1", name: "team", limit: 3, duration: MINUTE, reset: start + MINUTE, remaining: 0, autoApply: true }],
    });
    // v1 shows it too, and the owner.
    const v1 = await kit.verify("v1", { key: a.key });
    expect({ code: v1.code, ownerId: v1.payload.ownerId, ratelimit: v1.payload.ratelimit })
      .toEqual({ code: "RATE_LIMITED", ownerId: "team_shared", ratelimit: { limit: 3, remaining: 0, reset: start + MINUTE } });
  });

  it("shares a requested identity limit, and a key's own limit of the same name overrides it", async () => {
    toNextWindow(kit.harness.clock, MINUTE);
    const { apiId, a, b } = await identityKeys("team_requested", [{ id: "rl_seededReq1", name: "search", limit: 2, duration: MINUTE, autoApply: false }]);
    const own = await kit.admin.key(apiId, { externalId: "team_requested", ratelimits: [{ name: "search", limit: 5, duration: MINUTE }] });
    const search = [{ name: "search" }];
    expect((await kit.verify("v2", { key: a.key })).payload.ratelimits).toEqual([]);
    const codes: string[] = [];
    for (const key of [a.key, b.key, a.key, b.key]) codes.push((await kit.verify("v2", { key, ratelimits: search })).code);
    expect(codes).toEqual(["VALID", "VALID", "RATE_LIMITED", "RATE_LIMITED"]);
    const mine = await kit.verify("v1", { key: own.key, ratelimits: search });
    expect({ code: mine.code, ratelimit: mine.payload.ratelimit }).toEqual({ code: "VALID", ratelimit: expect.objectContaining({ limit: 5, remaining: 4 }) });
  });
});
