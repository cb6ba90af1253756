import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("identities.createIdentity", () => {
  const harness = useKeyward();

  it("answers 409 (v2 conflict, v1 CONFLICT, RPC ALREADY_EXISTS) to an externalId already taken in the workspace, changing nothing", async () => {
    const client = viaClient(harness.keyward.baseUrl, "v2", harness.keyward.rootKey);
    const { identityId } = await client.ok("identities.createIdentity", { externalId: "taken", meta: { first: true } });
    const before = await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId);
    for (const via of ALL_VIAS) {
      harness.writes.clear();
      const outcome = await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey)
        .call("identities.createIdentity", { externalId: "taken", meta: { second: true } });
      const detail = "An identity with externalId taken already exists";
      if (outcome.via === "v2") {
        expect(outcome.rest.status).toBe(409);
        expect(outcome.rest.body.error).toEqual({
          title: "Conflict", status: 409, type: "https://keyward.dev/docs/errors/conflict", detail: expect.stringContaining(detail),
        });
      } else if (outcome.via === "v1") {
        expect(outcome.rest.status).toBe(409);
        expect(outcome.rest.body.error).toMatchObject({ code: "CONFLICT", message: expect.stringContaining(detail) });
      } else {
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect({ code: Code[outcome.error.code], message: outcome.error.rawMessage }).toEqual({ code: "AlreadyExists", message: expect.stringContaining(detail) });
      }
      expect(harness.writes.writes).toEqual([]);
    }
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId)).toEqual(before);
    expect(await harness.keyward.documents.identities.count(harness.keyward.workspaceId)).toBe(1);
  });

  it("an identity created on demand by a key's externalId takes the externalId too", async () => {
    const apiId = await harness.seed.api();
    await harness.seed.key(apiId, { externalId: "from_key" });
    const outcome = await viaClient(harness.keyward.baseUrl, "v2", harness.keyward.rootKey).call("identities.createIdentity", { externalId: "from_key" });
    expect(outcome.via === "v2" && outcome.rest.status).toBe(409);
  });

  it("the same externalId is free in another workspace, and again once its identity is deleted", async () => {
    const other = await harness.seed.workspace();
    const mine = viaClient(harness.keyward.baseUrl, "v2", harness.keyward.rootKey);
    const theirs = viaClient(harness.keyward.baseUrl, "v2", other.rootKey.key);
    const first = await mine.ok("identities.createIdentity", { externalId: "shared_name" });
    const elsewhere = await theirs.ok("identities.createIdentity", { externalId: "shared_name" });
    expect(elsewhere.identityId).not.toBe(first.identityId);
    await mine.ok("identities.deleteIdentity", { identity: "shared_name" });
    const again = await mine.ok("identities.createIdentity", { externalId: "shared_name" });
    expect(again.identityId).not.toBe(first.identityId);
    expect((await mine.ok("identities.getIdentity", { identity: "shared_name" })).id).toBe(again.identityId);
  });
});
