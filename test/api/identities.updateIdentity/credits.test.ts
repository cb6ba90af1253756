import { beforeAll, describe, expect, it } from "vitest";
import { badInputCases } from "../../support/bad-input.js";
import { RPC_VIAS } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { plain } from "../../support/plain.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient, type ViaClient } from "../../support/vias.js";

const daily = { interval: "daily", amount: 50 };

describe("identities.updateIdentity of the credits shared by the identity's keys (Keyward extension)", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  const balance = (id: string) => harness.keyward.stores.counters.readCredits(id, id);
  const stored = (id: string) => harness.keyward.documents.identities.get(harness.keyward.workspaceId, id);
  const create = async (externalId: string, fields: Record<string, unknown> = {}) =>
    (await via("v2").ok("identities.createIdentity", { externalId, ...fields })).identityId as string;
  /** The identity an update answered: REST gives it bare, RPC inside UpdateIdentityResponse. */
  const identityOf = (name: ViaClient["via"], answer: unknown) => {
    const json = plain(answer);
    return name === "v1" || name === "v2" ? json : json.identity;
  };
  /** RPC sends a mask naming what it sets or clears (REST derives it from the body). */
  const update = (name: ViaClient["via"], id: string, fields: Record<string, unknown>, mask: string) =>
    via(name).ok("identities.updateIdentity", {
      ...(name === "v1" ? { identityId: id } : { identity: id }), ...fields, ...(RPC_VIAS.includes(name as never) ? { updateMask: mask } : {}),
    });

  it("sets, replaces and clears credits on v1, v2, Connect, gRPC and gRPC-Web, the balance following each change", async () => {
    for (const name of ALL_VIAS) {
      const id = await create(`upd_credits_${name}`, { meta: { kept: true } });
      // Set on an identity without credits.
      const set = identityOf(name, await update(name, id, { credits: { remaining: 20, refill: daily } }, "credits"));
      expect({ name, credits: set.credits, meta: set.meta }).toEqual({ name, credits: { remaining: 20, refill: daily }, meta: { kept: true } });
      expect(await balance(id)).toBe(20);
      // A new balance alone keeps the refill rule.
      const topped = identityOf(name, await update(name, id, { credits: { remaining: 35 } }, "credits.remaining"));
      expect({ name, credits: topped.credits }).toEqual({ name, credits: { remaining: 35, refill: daily } });
      // A new refill rule alone keeps the balance.
      const rule = { interval: "monthly", amount: 80, refillDay: 31 };
      const ruled = identityOf(name, await update(name, id, { credits: { refill: rule } }, "credits.refill"));
      expect({ name, credits: ruled.credits }).toEqual({ name, credits: { remaining: 35, refill: rule } });
      expect((await stored(id))!.credits).toEqual({ refill: rule });
      // Cleared: no credits, no balance.
      const cleared = identityOf(name, await update(name, id, name === "v1" || name === "v2" ? { credits: null } : {}, "credits"));
      expect({ name, credits: cleared.credits, meta: cleared.meta }).toEqual({ name, credits: undefined, meta: { kept: true } });
      expect((await stored(id))!.credits).toBeUndefined();
      expect(await balance(id)).toBeUndefined();
    }
  });

  it("an update of other fields leaves the credits and their balance as they are", async () => {
    const id = await create("upd_other_fields", { credits: { remaining: 9, refill: daily } });
    const answer = await via("v2").ok("identities.updateIdentity", { identity: id, meta: { plan: "pro" } });
    expect(answer.credits).toEqual({ remaining: 9, refill: daily });
    expect(await balance(id)).toBe(9);
  });

  beforeAll(async () => {
    await create("upd_bad_plain");
    await create("upd_bad_target", { credits: { remaining: 4 } });
  });

  badInputCases(harness, "identities.updateIdentity", [
    {
      what: "a refill on an identity without credits and no balance", input: { identity: "upd_bad_plain", credits: { refill: daily } },
      detail: "refill needs a credit balance", vias: ["v2"],
    },
    {
      what: "credits with a negative balance", input: { identity: "upd_bad_target", credits: { remaining: -5 } },
      locations: ["body.credits.remaining"], detail: "remaining", vias: ["v2"],
    },
    {
      what: "a daily refill with a refillDay", input: { identity: "upd_bad_target", credits: { remaining: 5, refill: { ...daily, refillDay: 3 } } },
      locations: ["body.credits.refill.refillDay"], detail: "refillDay", vias: ["v2"],
    },
  ]);

  it("bad credits change nothing: the identity's rule and balance stay on v1, v2 and RPC", async () => {
    const id = (await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, "upd_bad_target"))!.id;
    const before = await stored(id);
    const bad = { credits: { remaining: 5, refill: { interval: "daily", amount: 5, refillDay: 3 } } };
    await via("v1").fails("identities.updateIdentity", { identityId: id, ...bad }, "invalid", { detail: "refillDay" });
    await via("v2").fails("identities.updateIdentity", { identity: id, ...bad }, "invalid", { detail: "refillDay" });
    for (const name of RPC_VIAS) {
      await via(name).fails("identities.updateIdentity", { identity: id, ...bad, updateMask: "credits" }, "invalid", { detail: "refillDay" });
    }
    expect(await stored(id)).toEqual(before);
    expect(await balance(id)).toBe(4);
  });

  it("an identity of another workspace is 404 and keeps its balance; without update_identity 403 naming it", async () => {
    const other = await harness.seed.workspace("credits-other");
    const { identityId } = await via("v2").ok("identities.createIdentity", { externalId: "theirs", credits: { remaining: 3 } }, other.rootKey.key);
    for (const name of ALL_VIAS) {
      const reference = name === "v1" ? { identityId } : { identity: identityId };
      await via(name).fails("identities.updateIdentity", { ...reference, credits: { remaining: 1000 }, updateMask: RPC_VIAS.includes(name as never) ? "credits" : undefined }, "not_found");
    }
    expect(await balance(identityId)).toBe(3);

    const mine = await create("upd_denied", { credits: { remaining: 2 } });
    const { key } = await harness.seed.rootKey(["identity.*.read_identity"]);
    for (const name of ALL_VIAS) {
      await expectRefusal(harness, {
        via: name, op: "identities.updateIdentity", input: { ...(name === "v1" ? { identityId: mine } : { identity: mine }), credits: { remaining: 99 } },
        authorization: bearerOf(key), kind: "forbidden", detail: "identity.*.update_identity",
      });
    }
    expect(await balance(mine)).toBe(2);
  });
});
