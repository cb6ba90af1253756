import { Code, createClient, ConnectError } from "@connectrpc/connect";
import {
  createConnectTransport as createWebConnectTransport,
  createGrpcWebTransport as createWebGrpcWebTransport,
} from "@connectrpc/connect-web";
import { describe, expect, it } from "vitest";
import { Health } from "../../../gen/grpc/health/v1/health_pb.js";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import type { Outcome } from "../../support/operations.js";
import { rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID, requestIdOf, viaClient } from "../../support/vias.js";

/** The id in the header, checked against the body's copy where the dialect puts one there. */
function idOf(outcome: Outcome): string {
  const id = requestIdOf(outcome);
  expect(id, `${outcome.via} response without x-request-id`).toMatch(REQUEST_ID);
  if (outcome.via === "v2") expect(outcome.rest.body.meta.requestId).toBe(id);
  if (outcome.via === "v1" && outcome.rest.status !== 200) expect(outcome.rest.body.error.requestId).toBe(id);
  return id as string;
}

describe("request ids", () => {
  const harness = useKeyward();
  const seen = new Set<string>();
  const fresh = (id: string) => {
    expect(seen.has(id), `request id ${id} reused`).toBe(false);
    seen.add(id);
  };

  it("every success carries a fresh req_ id in x-request-id (and v2 in meta.requestId), on every transport", async () => {
    const apiId = await harness.seed.api({ name: "ids" });
    for (const via of ALL_VIAS) {
      const client = viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey);
      for (const [op, input] of [
        ["apis.createApi", { name: "ids-created" }], ["apis.getApi", { apiId }], ["apis.listKeys", { apiId }],
      ] as const) {
        const outcome = await client.call(op, input);
        expect(outcome.via === "v2" || outcome.via === "v1" ? outcome.rest.status : outcome.ok).toBe(
          outcome.via === "v2" || outcome.via === "v1" ? 200 : true,
        );
        fresh(idOf(outcome));
      }
    }
  });

  it("every error (400, 401, 403, 404, 412) carries it too, in the header and the REST error body", async () => {
    const protectedApi = await harness.seed.api({ name: "guarded", deleteProtection: true });
    const { key: readOnly } = await harness.seed.rootKey(["api.*.read_api"]);
    for (const via of ALL_VIAS) {
      const client = viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey);
      const outcomes = [
        await client.call("apis.getApi", { apiId: "x" }),
        await client.call("apis.getApi", { apiId: protectedApi }, "kw_root_unknownunknownunknown"),
        await client.call("apis.deleteApi", { apiId: protectedApi }, readOnly),
        await client.call("apis.getApi", { apiId: "api_1111111111111111111111" }),
        await client.call("apis.deleteApi", { apiId: protectedApi }),
      ];
      const statuses = outcomes.map((o) => (o.via === "v2" || o.via === "v1" ? o.rest.status : o.ok ? "ok" : Code[o.error.code]));
      expect(statuses).toEqual(
        via === "v2" || via === "v1"
          ? [400, 401, 403, 404, 412]
          : ["InvalidArgument", "Unauthenticated", "PermissionDenied", "NotFound", "FailedPrecondition"],
      );
      for (const outcome of outcomes) fresh(idOf(outcome));
    }
  });

  it("REST errors outside any operation carry it too: unknown path, wrong method, oversized and malformed bodies", async () => {
    const base = harness.keyward.baseUrl;
    const auth = { authorization: `Bearer ${harness.keyward.rootKey}`, "content-type": "application/json" };
    const responses = [
      await fetch(`${base}/v2/nothing.here`, { method: "POST", body: "{}" }),
      await fetch(`${base}/v1/nothing.here`),
      await fetch(`${base}/not-versioned`),
      await fetch(`${base}/v2/apis.createApi`),
      await fetch(`${base}/v2/apis.createApi`, { method: "POST", headers: auth, body: "x".repeat(1024 * 1024 + 1) }),
      await fetch(`${base}/v2/apis.createApi`, { method: "POST", headers: auth, body: "{oops" }),
    ];
    for (const response of responses) {
      const body = await response.json();
      const id = response.headers.get("x-request-id");
      expect(id).toMatch(REQUEST_ID);
      expect(body.meta?.requestId ?? body.error?.requestId).toBe(id);
      fresh(id as string);
    }
    expect(responses.map((r) => r.status)).toEqual([404, 404, 404, 405, 413, 400]);
  });

  it("RPC failures raised before any handler runs (oversized or undecodable messages) carry it too", async () => {
    const base = harness.keyward.baseUrl;
    const auth = { authorization: `Bearer ${harness.keyward.rootKey}` };
    const undecodable = await fetch(`${base}/keyward.v1.ApisService/CreateApi`, {
      method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{oops",
    });
    expect(undecodable.status).toBe(400);
    fresh(undecodable.headers.get("x-request-id") as string);
    expect(undecodable.headers.get("x-request-id")).toMatch(REQUEST_ID);
    // Connect and gRPC-Web through fetch: under Deno, the node:http client behind connect-node reports the server's
    // early answer to a still-uploading request as a reset (see test/support/too-large.ts). gRPC needs HTTP/2.
    const transports = {
      connect: createWebConnectTransport({ baseUrl: base }),
      grpc: rpcTransports(base).grpc,
      grpcWeb: createWebGrpcWebTransport({ baseUrl: base }),
    };
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      const client = createClient(ApisService, transports[via]);
      const error = await client.createApi({ name: "x".repeat(1024 * 1024 + 1) }, { headers: auth }).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      expect({ via, code: error?.code }).toEqual({ via, code: Code.ResourceExhausted });
      expect(error?.rawMessage).toMatch(/1048576 bytes/);
      expect(error?.metadata.get("x-request-id"), via).toMatch(REQUEST_ID);
    }
  });

  it("gRPC health answers carry it too", async () => {
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      let headers = new Headers();
      await createClient(Health, rpcTransports(harness.keyward.baseUrl)[via]).check({ service: "" }, { onHeader: (h) => void (headers = h) });
      expect(headers.get("x-request-id"), via).toMatch(REQUEST_ID);
      fresh(headers.get("x-request-id") as string);
    }
  });
});
