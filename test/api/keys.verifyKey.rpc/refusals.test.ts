import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { bearer, rpcTransports } from "../../support/rpc.js";
import { useVerifyKit } from "../../support/verify-key.js";

const VIAS = ["connect", "grpc", "grpcWeb"] as const;

/** Awaits a call that must fail with `code`; returns the error's message. */
async function failsWith(call: Promise<unknown>, code: Code): Promise<string> {
  try {
    await call;
  } catch (error) {
    const connectError = ConnectError.from(error);
    expect(Code[connectError.code]).toBe(Code[code]);
    return connectError.rawMessage;
  }
  throw new Error(`expected ${Code[code]}, the call succeeded`);
}

describe("KeysService.VerifyKey refusals over RPC", () => {
  const kit = useVerifyKit();
  const client = (via: (typeof VIAS)[number]) => createClient(KeysService, rpcTransports(kit.harness.keyward.baseUrl)[via]);

  it("answers UNAUTHENTICATED without a root key or with an unknown one, spending nothing", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 2 } });
    for (const via of VIAS) {
      expect(await failsWith(client(via).verifyKey({ key }), Code.Unauthenticated)).toContain("The Authorization header is missing");
      expect(await failsWith(client(via).verifyKey({ key }, bearer("kw_root_unknown_1234")), Code.Unauthenticated)).toContain("unknown or revoked");
      // Authentication comes before validation.
      await failsWith(client(via).verifyKey({ key: "" }), Code.Unauthenticated);
    }
    expect(await kit.admin.balance(keyId)).toBe(2);
  });

  it("answers PERMISSION_DENIED to a root key without any verify_key", async () => {
    const { key: rootKey } = await kit.harness.seed.rootKey(["api.*.read_key"]);
    for (const via of VIAS) {
      expect(await failsWith(client(via).verifyKey({ key: "whatever" }, bearer(rootKey)), Code.PermissionDenied)).toContain("api.*.verify_key");
    }
  });

  it("answers INVALID_ARGUMENT to 21 tags, FAILED_PRECONDITION (v2) and INVALID_ARGUMENT (v1) to an unknown limit name", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 2 } });
    const root = bearer(kit.harness.keyward.rootKey);
    for (const via of VIAS) {
      const rpc = client(via);
      await failsWith(rpc.verifyKey({ key, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, root), Code.InvalidArgument);
      await failsWith(rpc.verifyKeyV1({ key, tags: ["x".repeat(129)] }), Code.InvalidArgument);
      expect(await failsWith(rpc.verifyKey({ key, ratelimits: [{ name: "nope" }] }, root), Code.FailedPrecondition)).toContain('"nope"');
      expect(await failsWith(rpc.verifyKeyV1({ key, ratelimits: [{ name: "nope" }] }), Code.InvalidArgument)).toContain('"nope"');
    }
    expect(await kit.admin.balance(keyId)).toBe(2);
  });
});
