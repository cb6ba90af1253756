import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { status } from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { grpcJsClient } from "../support/grpc-js-client.js";
import { useKeyward } from "../support/use-keyward.js";

describe("interop: @grpc/grpc-js against the running server", () => {
  const harness = useKeyward();
  const clients: { close(): void }[] = [];
  afterAll(() => clients.forEach((c) => c.close()));
  function client<T extends GenServiceMethods>(service: GenService<T>, options = {}) {
    const made = grpcJsClient(service, `127.0.0.1:${harness.keyward.port}`, options);
    clients.push(made);
    return made;
  }

  it("creates an api and a key with credits and a limit, then verifies until USAGE_EXCEEDED", async () => {
    const rootKey = harness.keyward.rootKey;
    const api = await client(ApisService).call("createApi", { name: "grpc-js-api" }, { rootKey });
    if (!api.ok) throw api.error;
    const keys = client(KeysService);
    const created = await keys.call("createKey", {
      apiId: api.message.apiId,
      credits: { remaining: 3n },
      ratelimits: [{ name: "requests", limit: 100n, duration: 60_000n, autoApply: true }],
    }, { rootKey });
    if (!created.ok) throw created.error;
    const outcomes = [];
    for (let i = 0; i < 4; i++) {
      const verified = await keys.call("verifyKey", { key: created.message.key }, { rootKey });
      if (!verified.ok) throw verified.error;
      outcomes.push([verified.message.code, verified.message.credits, verified.message.ratelimits[0]?.remaining]);
    }
    expect(outcomes).toEqual([["VALID", 2n, 99n], ["VALID", 1n, 98n], ["VALID", 0n, 97n], ["USAGE_EXCEEDED", 0n, 97n]]);
  });

  it("reports UNAUTHENTICATED without a root key", async () => {
    const outcome = await client(ApisService).call("createApi", { name: "anonymous" });
    expect(outcome.ok ? "ok" : [outcome.error.code, outcome.error.details]).toEqual([
      status.UNAUTHENTICATED, "The Authorization header is missing; send `Authorization: Bearer <root key>`.",
    ]);
  });

  it("reports INVALID_ARGUMENT naming the field, with google.rpc.BadRequest in grpc-status-details-bin", async () => {
    const outcome = await client(ApisService).call("createApi", { name: "ab" }, { rootKey: harness.keyward.rootKey });
    if (outcome.ok) throw new Error("createApi with an empty name succeeded");
    expect(outcome.error.code).toBe(status.INVALID_ARGUMENT);
    expect(outcome.error.details).toMatch(/^name: /);
    const [details] = outcome.error.metadata.get("grpc-status-details-bin") as Buffer[];
    const rpcStatus = fromBinary(StatusSchema, details);
    expect(anyUnpack(rpcStatus.details[0], BadRequestSchema)?.fieldViolations.map((v) => v.field)).toEqual(["name"]);
  });

  it("reports DEADLINE_EXCEEDED when the deadline expires", async () => {
    const outcome = await client(ApisService).call("createApi", { name: "too-late" }, { rootKey: harness.keyward.rootKey, deadlineMs: -1 });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe(status.DEADLINE_EXCEEDED);
  });

  // grpc-js hides grpc-encoding from the metadata it surfaces; protocol.test.ts checks the gzip answer frame by frame.
  it("sends a gzip request and reads the (gzip) answer", async () => {
    const gzip = client(ApisService, { "grpc.default_compression_algorithm": 2 });
    const outcome = await gzip.call("createApi", { name: "gzip-api" }, { rootKey: harness.keyward.rootKey });
    if (!outcome.ok) throw outcome.error;
    expect(outcome.message.apiId).toMatch(/^api_/);
  });

  it("passes the health check", async () => {
    const outcome = await client(Health).call("check", { service: "" });
    if (!outcome.ok) throw outcome.error;
    expect(outcome.message.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });
});
