import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID, viaClient, type ViaClient } from "../../support/vias.js";

const IDENTITY_ID = /^id_[1-9A-HJ-NP-Za-km-z]{22}$/;
const RL_ID = /^rl_[1-9A-HJ-NP-Za-km-z]{22}$/;

describe("identities.createIdentity", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("creates an identity with meta and rate limits on every transport and stores exactly what was sent", async () => {
    for (const name of ALL_VIAS) {
      harness.writes.clear();
      const externalId = `user_${name}`;
      const created = await via(name).ok("identities.createIdentity", {
        externalId, meta: { plan: "pro", seats: 3 },
        ratelimits: [{ name: "requests", limit: 10, duration: 60_000, autoApply: true }, { name: "search", limit: 2, duration: 1000 }],
      });
      expect(created.identityId).toMatch(IDENTITY_ID);
      expect(harness.writes.writes).toEqual([{ call: "identities.insert", id: created.identityId }]);
      const stored = await harness.keyward.documents.identities.get(harness.keyward.workspaceId, created.identityId);
      expect(stored).toEqual({
        id: created.identityId, workspaceId: harness.keyward.workspaceId, externalId, meta: { plan: "pro", seats: 3 },
        ratelimits: [
          { id: expect.stringMatching(RL_ID), name: "requests", limit: 10, duration: 60_000, autoApply: true },
          { id: expect.stringMatching(RL_ID), name: "search", limit: 2, duration: 1000, autoApply: false },
        ],
        createdAt: harness.clock.now(),
      });
    }
  });

  it("answers v2 with exactly {meta, data:{identityId}} and v1 with the bare {identityId}", async () => {
    const v2 = await harness.rest.v2("identities.createIdentity", { externalId: "shape_v2" }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { identityId: expect.stringMatching(IDENTITY_ID) } });
    const v1 = await harness.rest.v1Post("identities.createIdentity", { externalId: "shape_v1" }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ identityId: expect.stringMatching(IDENTITY_ID) });
  });

  it("stores no meta and no limits when none are given, and an empty meta as none", async () => {
    const { identityId } = await via("v2").ok("identities.createIdentity", { externalId: "bare_user", meta: {}, ratelimits: [] });
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId)).toEqual({
      id: identityId, workspaceId: harness.keyward.workspaceId, externalId: "bare_user", ratelimits: [], createdAt: harness.clock.now(),
    });
  });

  it("accepts an external id of letters, digits, underscores, dots and hyphens up to 255 characters", async () => {
    for (const externalId of ["a", "org.42_user-7", "x".repeat(255)]) {
      const { identityId } = await via("v2").ok("identities.createIdentity", { externalId });
      expect((await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId))?.externalId).toBe(externalId);
    }
  });

  it("takes any characters and 3+ of them on v1 (Unkey v1), 1 character on v2, and any characters over the RPCs", async () => {
    const stored = async (identityId: string) => (await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId))?.externalId;
    const v1 = await harness.rest.v1Post("identities.createIdentity", { externalId: "user@example.com" }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect(await stored(v1.body.identityId)).toBe("user@example.com");
    const three = await harness.rest.v1Post("identities.createIdentity", { externalId: "abc" }, harness.keyward.rootKey);
    expect(three.status).toBe(200);
    expect(await stored((await via("v2").ok("identities.createIdentity", { externalId: "z" })).identityId)).toBe("z");
    expect(await stored((await via("connect").ok("identities.createIdentity", { externalId: "team/42" })).identityId)).toBe("team/42");
  });

  it("serves a root key holding only identity.*.create_identity", async () => {
    const { key } = await harness.seed.rootKey(["identity.*.create_identity"]);
    for (const name of ALL_VIAS) {
      expect((await via(name).ok("identities.createIdentity", { externalId: `scoped_${name}` }, key)).identityId).toMatch(IDENTITY_ID);
    }
  });
});
