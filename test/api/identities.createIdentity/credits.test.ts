import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases } from "../../support/bad-input.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { plain } from "../../support/plain.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient, type ViaClient } from "../../support/vias.js";


const monthly = { remaining: 100, refill: { interval: "monthly", amount: 100, refillDay: 15 } };

describe("identities.createIdentity with credits shared by the identity's keys (Keyward extension)", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  /** How many balances the (embedded) counter store holds. */
  const balances = () => (harness.keyward.stores.counters as unknown as { stats(): { balances: number } }).stats().balances;
  const balance = (id: string) => harness.keyward.stores.counters.readCredits(id, id);

  it("creates credits with a refill on v1, v2, Connect, gRPC and gRPC-Web; getIdentity shows the balance and rule on each", async () => {
    for (const [i, creator] of ALL_VIAS.entries()) {
      const externalId = `credits_${creator}`;
      const created = plain(await via(creator).ok("identities.createIdentity", { externalId, credits: { ...monthly, remaining: 100 + i } }));
      const id = created.identityId as string;
      expect(await balance(id)).toBe(100 + i);
      expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, id)).toMatchObject({
        credits: { refill: { interval: "monthly", amount: 100, refillDay: 15 } },
      });
      for (const reader of ALL_VIAS) {
        const reference = reader === "v1" ? { identityId: id } : { identity: externalId };
        const answer = plain(await via(reader).ok("identities.getIdentity", reference));
        // REST answers the identity itself (response_body), RPC a GetIdentityResponse around it.
        const got = reader === "v1" || reader === "v2" ? answer : answer.identity;
        expect({ reader, credits: got.credits }).toEqual({ reader, credits: { ...monthly, remaining: 100 + i } });
      }
    }
  });

  it("an identity without credits shows none, and its balance is never created", async () => {
    const { identityId } = await via("v2").ok("identities.createIdentity", { externalId: "no_credits" });
    for (const reader of ALL_VIAS) {
      const answer = plain(await via(reader).ok("identities.getIdentity", reader === "v1" ? { identityId } : { identity: identityId }));
      expect((reader === "v1" || reader === "v2" ? answer : answer.identity).credits).toBeUndefined();
    }
    expect(await balance(identityId)).toBeUndefined();
  });

  it("v1 defaults a monthly refill to day 1, as Unkey v1 does for a key's refill", async () => {
    const created = await via("v1").ok("identities.createIdentity", { externalId: "v1_monthly", credits: { remaining: 3, refill: { interval: "monthly", amount: 9 } } });
    const got = await via("v1").ok("identities.getIdentity", { identityId: created.identityId });
    expect(got.credits).toEqual({ remaining: 3, refill: { interval: "monthly", amount: 9, refillDay: 1 } });
  });

  it("listIdentities shows each identity's balance", async () => {
    const { identityId } = await via("v2").ok("identities.createIdentity", { externalId: "listed_credits", credits: { remaining: 7 } });
    const page = await via("v2").ok("identities.listIdentities", { search: "listed_credits" });
    expect(page).toEqual([{ id: identityId, externalId: "listed_credits", meta: {}, ratelimits: [], credits: { remaining: 7 } }]);
  });

  it("a conflicting external id leaves no balance behind", async () => {
    await via("v2").ok("identities.createIdentity", { externalId: "taken_credits", credits: { remaining: 5 } });
    const before = balances();
    await via("v2").fails("identities.createIdentity", { externalId: "taken_credits", credits: { remaining: 9 } }, "conflict");
    expect(balances()).toEqual(before);
  });

  badInputCases(harness, "identities.createIdentity", [
    {
      what: "credits with a negative balance", input: { externalId: "bad_c1", credits: { remaining: -1 } },
      locations: ["body.credits.remaining"], detail: "remaining", vias: ["v2", "v1"],
    },
    {
      what: "a refill without a balance", input: { externalId: "bad_c2", credits: { refill: { interval: "daily", amount: 5 } } },
      locations: ["body.credits.remaining"], detail: "refill needs a credit balance", vias: ["v2", "v1"],
    },
    {
      // v1 defaults a monthly refill to day 1, as for keys.
      what: "a monthly refill without refillDay", input: { externalId: "bad_c3", credits: { remaining: 1, refill: { interval: "monthly", amount: 5 } } },
      locations: ["body.credits.refill.refillDay"], detail: "refillDay", vias: ["v2"],
    },
    {
      what: "a daily refill with refillDay", input: { externalId: "bad_c7", credits: { remaining: 1, refill: { interval: "daily", amount: 5, refillDay: 2 } } },
      locations: ["body.credits.refill.refillDay"], detail: "refillDay", vias: ["v2", "v1"],
    },
    {
      what: "a weekly refill", input: { externalId: "bad_c4", credits: { remaining: 1, refill: { interval: "weekly", amount: 5 } } },
      locations: ["body.credits.refill.interval"], detail: "interval", vias: ["v2", "v1"],
    },
    {
      what: "a refill amount of 0", input: { externalId: "bad_c5", credits: { remaining: 1, refill: { interval: "daily", amount: 0 } } },
      locations: ["body.credits.refill.amount"], detail: "amount", vias: ["v2", "v1"],
    },
    {
      what: "a string for credits", input: { externalId: "bad_c6", credits: "100" },
      locations: ["body.credits"], detail: "credits", vias: ["v2", "v1"],
    },
  ]);

  badRpcCases(harness, "identities.createIdentity", [
    { what: "a negative balance", input: { externalId: "bad_r1", credits: { remaining: -1 } }, field: "credits.remaining" },
    { what: "a refill without a balance", input: { externalId: "bad_r2", credits: { refill: { interval: "daily", amount: 5 } } }, field: "refill needs a credit balance" },
    { what: "a monthly refill without refillDay", input: { externalId: "bad_r3", credits: { remaining: 1, refill: { interval: "monthly", amount: 5 } } }, field: "needs refillDay" },
  ]);

  it("a bad credits input creates nothing: no identity, no balance", async () => {
    const before = balances();
    await via("v2").fails("identities.createIdentity", { externalId: "nothing_made", credits: { refill: { interval: "daily", amount: 5 } } }, "invalid");
    expect(await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, "nothing_made")).toBeUndefined();
    expect(balances()).toEqual(before);
  });

  it("without create_identity: 403 naming the permission on every transport, no balance written", async () => {
    const { key } = await harness.seed.rootKey(["identity.*.read_identity"]);
    for (const v of ALL_VIAS) {
      await expectRefusal(harness, {
        via: v, op: "identities.createIdentity", input: { externalId: `denied_${v}`, credits: { remaining: 5 } }, authorization: bearerOf(key),
        kind: "forbidden", detail: "identity.*.create_identity",
      });
    }
  });
});
