import { createClient } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { bearer, rpcTransports } from "../../support/rpc.js";
import { keyAdmin, useVerifyKit } from "../../support/verify-key.js";

const VIAS = ["connect", "grpc", "grpcWeb"] as const;

describe("KeysService.VerifyKey and VerifyKeyV1 over RPC", () => {
  const kit = useVerifyKit();
  const client = (via: (typeof VIAS)[number]) => createClient(KeysService, rpcTransports(kit.harness.keyward.baseUrl)[via]);

  it("answers VALID, then USAGE_EXCEEDED with the unchanged balance, the same codes REST v2 gives", async () => {
    const apiId = await kit.admin.api();
    for (const via of VIAS) {
      const { keyId, key } = await kit.admin.key(apiId, { name: `rpc-${via}`, credits: { remaining: 2 }, permissions: ["p"] });
      const rpc = client(via);
      const first = await rpc.verifyKey({ key }, bearer(kit.harness.keyward.rootKey));
      expect({ via, valid: first.valid, code: first.code, keyId: first.keyId, name: first.name, credits: first.credits, permissions: first.permissions })
        .toEqual({ via, valid: true, code: "VALID", keyId, name: `rpc-${via}`, credits: 1n, permissions: ["p"] });
      const rest = await kit.verify("v2", { key });
      expect({ code: rest.code, credits: rest.credits }).toEqual({ code: "VALID", credits: 0 });
      for (let i = 0; i < 2; i++) {
        const denied = await rpc.verifyKey({ key, credits: { cost: 1n } }, bearer(kit.harness.keyward.rootKey));
        expect({ via, valid: denied.valid, code: denied.code, keyId: denied.keyId, credits: denied.credits })
          .toEqual({ via, valid: false, code: "USAGE_EXCEEDED", keyId, credits: 0n });
      }
      expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
      const free = await rpc.verifyKey({ key, credits: { cost: 0n } }, bearer(kit.harness.keyward.rootKey));
      expect({ via, code: free.code, credits: free.credits }).toEqual({ via, code: "VALID", credits: 0n });
      expect(await kit.admin.balance(keyId)).toBe(0);
    }
  });

  it("answers NOT_FOUND with no key data for an unknown key, a deleted key and another workspace's key", async () => {
    const apiId = await kit.admin.api();
    const deleted = await kit.admin.key(apiId, { name: "gone" });
    await kit.admin.ok("keys.deleteKey", { keyId: deleted.keyId });
    const other = await kit.harness.seed.workspace("rpc-other");
    const theirs = keyAdmin(kit.harness.keyward.baseUrl, other.rootKey.key);
    const foreign = await theirs.key(await theirs.api("their-api"), { name: "foreign" });
    for (const via of VIAS) {
      for (const key of ["unknown_rpc_key", deleted.key, foreign.key]) {
        const result = await client(via).verifyKey({ key }, bearer(kit.harness.keyward.rootKey));
        expect({ via, valid: result.valid, code: result.code, keyId: result.keyId, name: result.name, credits: result.credits, enabled: result.enabled, identity: result.identity, ratelimits: result.ratelimits, permissions: result.permissions })
          .toEqual({ via, valid: false, code: "NOT_FOUND", keyId: undefined, name: undefined, credits: undefined, enabled: undefined, identity: undefined, ratelimits: [], permissions: [] });
        expect((await kit.verify("v2", { key })).code).toBe("NOT_FOUND");
      }
    }
  });

  it("VerifyKeyV1 works without a root key and reports FORBIDDEN, VALID and the request id", async () => {
    const apiId = await kit.admin.api();
    const otherApi = await kit.admin.api("other-api");
    const { keyId, key } = await kit.admin.key(apiId, { externalId: "rpc_owner", credits: { remaining: 5 } });
    let left = 5;
    for (const via of VIAS) {
      const rpc = client(via);
      let header: Headers | undefined;
      const ok = await rpc.verifyKeyV1({ key, apiId }, { onHeader: (h) => void (header = h) });
      left -= 1;
      expect({ via, valid: ok.valid, code: ok.code, keyId: ok.keyId, ownerId: ok.ownerId, remaining: ok.remaining })
        .toEqual({ via, valid: true, code: "VALID", keyId, ownerId: "rpc_owner", remaining: BigInt(left) });
      expect(ok.requestId).toMatch(/^req_/);
      expect(header?.get("x-request-id")).toBe(ok.requestId);
      const forbidden = await rpc.verifyKeyV1({ key, apiId: otherApi });
      expect({ via, code: forbidden.code, remaining: forbidden.remaining }).toEqual({ via, code: "FORBIDDEN", remaining: BigInt(left) });
      const missing = await rpc.verifyKeyV1({ key: "unknown_rpc_key" });
      expect({ via, valid: missing.valid, code: missing.code, keyId: missing.keyId }).toEqual({ via, valid: false, code: "NOT_FOUND", keyId: undefined });
    }
    expect(await kit.admin.balance(keyId)).toBe(left);
  });
});
