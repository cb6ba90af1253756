import { describe, expect, it } from "vitest";
import { callOperation, OPERATIONS, RPC_VIAS } from "../../support/operations.js";
import { expectSuccess } from "../../support/expect-outcome.js";
import { bearerOf } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, restV2, viaClient, type ViaClient } from "../../support/vias.js";

const op = OPERATIONS["identities.getIdentity"];
const limits = [{ name: "requests", limit: 10, duration: 60_000, autoApply: true }, { name: "search", limit: 2, duration: 1000 }];

describe("identities.getIdentity", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  async function created(externalId: string) {
    const { identityId } = await via("v2").ok("identities.createIdentity", { externalId, meta: { plan: "pro" }, ratelimits: limits });
    const record = await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId);
    return { identityId, ids: record!.ratelimits.map((l) => l.id) };
  }

  it("v2 returns {meta, data:{id, externalId, meta, ratelimits}} by identity id and by external id", async () => {
    const { identityId, ids } = await created("get_v2");
    const data = {
      id: identityId, externalId: "get_v2", meta: { plan: "pro" },
      ratelimits: [
        { id: ids[0], name: "requests", limit: 10, duration: 60_000, autoApply: true },
        { id: ids[1], name: "search", limit: 2, duration: 1000, autoApply: false },
      ],
    };
    for (const identity of [identityId, "get_v2"]) {
      const response = await harness.rest.v2("identities.getIdentity", { identity }, harness.keyward.rootKey);
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { meta: { requestId: expect.stringMatching(REQUEST_ID) }, data } });
    }
  });

  it("finds an identity by any external id, as Unkey v2 lookups take any text (F17)", async () => {
    const created = await harness.rest.v1Post("identities.createIdentity", { externalId: "user@example.com" }, harness.keyward.rootKey);
    expect(created.status).toBe(200);
    const response = await harness.rest.v2("identities.getIdentity", { identity: "user@example.com" }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: created.body.identityId, externalId: "user@example.com" });
  });

  it("v1 GET returns the bare {id, externalId, meta, ratelimits:[{name, limit, duration}]} by identityId or externalId", async () => {
    const { identityId } = await created("get_v1");
    const body = {
      id: identityId, externalId: "get_v1", meta: { plan: "pro" },
      ratelimits: [{ name: "requests", limit: 10, duration: 60_000 }, { name: "search", limit: 2, duration: 1000 }],
    };
    for (const query of [{ identityId }, { externalId: "get_v1" }] as Record<string, string>[]) {
      const response = await harness.rest.v1Get("identities.getIdentity", query, harness.keyward.rootKey);
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body });
    }
  });

  it("Connect, gRPC and gRPC-Web return the Identity message, by id or external id", async () => {
    const { identityId } = await created("get_rpc");
    for (const name of RPC_VIAS) {
      for (const input of [{ identity: identityId }, { identity: "get_rpc" }, { identityId }, { externalId: "get_rpc" }]) {
        const message = await via(name).ok("identities.getIdentity", input);
        expect(message.identity).toMatchObject({ id: identityId, externalId: "get_rpc", meta: { plan: "pro" } });
        expect(message.identity.ratelimits.map((l: { name: string; limit: bigint }) => [l.name, l.limit])).toEqual([["requests", 10n], ["search", 2n]]);
      }
    }
  });

  it("an identity created on demand by a key's externalId reads with empty meta and no limits", async () => {
    const apiId = await harness.seed.api();
    await harness.seed.key(apiId, { externalId: "on_demand" });
    const data = await via(restV2).ok("identities.getIdentity", { identity: "on_demand" });
    expect(data).toEqual({ id: expect.stringMatching(/^id_/), externalId: "on_demand", meta: {}, ratelimits: [] });
  });

  it("an external id that looks like an identity id still finds its identity", async () => {
    const { identityId } = await created("id_lookalike");
    expect((await via(restV2).ok("identities.getIdentity", { identity: "id_lookalike" })).id).toBe(identityId);
  });

  it("serves a root key holding read_identity for exactly this identity, and reads without writing", async () => {
    const { identityId } = await created("get_scoped");
    const { key } = await harness.seed.rootKey([`identity.${identityId}.read_identity`]);
    harness.writes.clear();
    for (const name of ["v1", "v2", ...RPC_VIAS] as const) {
      const input = name === "v1" ? { externalId: "get_scoped" } : { identity: "get_scoped" };
      const data = expectSuccess(await callOperation(harness.keyward.baseUrl, name, op, input, { authorization: bearerOf(key) }));
      expect(name === "v1" || name === "v2" ? data.id : data.identity.id).toBe(identityId);
    }
    expect(harness.writes.writes).toEqual([]);
  });
});
