import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Transport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { callOperation, OPERATIONS, type OperationName, type RpcVia } from "../../support/operations.js";
import { bearerOf } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.* over fetch-based Connect and gRPC-Web clients (connect-web)", () => {
  const harness = useKeyward();

  it("create, get, list, update and delete give the same answers as the node clients and REST", async () => {
    const transports: [RpcVia, Transport][] = [
      ["connect", createConnectTransport({ baseUrl: harness.keyward.baseUrl })],
      ["grpcWeb", createGrpcWebTransport({ baseUrl: harness.keyward.baseUrl })],
    ];
    for (const [via, transport] of transports) {
      const call = async (op: OperationName, input: unknown) =>
        expectSuccess(await callOperation(harness.keyward.baseUrl, via, OPERATIONS[op], input, { authorization: bearerOf(harness.keyward.rootKey), transport }));
      const externalId = `fetch_${via}`;
      const { identityId } = await call("identities.createIdentity", {
        externalId, meta: { via }, ratelimits: [{ name: "requests", limit: 10, duration: 60_000, autoApply: true }],
      });
      const got = await call("identities.getIdentity", { identity: externalId });
      expect(got.identity).toMatchObject({ id: identityId, externalId, meta: { via }, ratelimits: [{ name: "requests", limit: 10n, duration: 60_000n, autoApply: true }] });
      const rest = await harness.rest.v2("identities.getIdentity", { identity: identityId }, harness.keyward.rootKey);
      expect(rest.body.data).toMatchObject({ id: identityId, externalId, meta: { via } });

      const listed = await call("identities.listIdentities", { limit: 100 });
      expect(listed.data.map((i: { id: string }) => i.id)).toContain(identityId);

      const updated = await call("identities.updateIdentity", { identity: identityId, meta: { via, updated: true } });
      expect(updated.identity.meta).toEqual({ via, updated: true });

      await call("identities.deleteIdentity", { identity: externalId });
      expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId)).toBeUndefined();
    }
  });
});
