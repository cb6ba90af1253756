import { ConnectError, Code, createClient } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { BadRequestSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { bearer, rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("validation errors over RPC", () => {
  const harness = useKeyward();

  it("carry google.rpc.BadRequest with proto field paths on Connect, gRPC and gRPC-Web", async () => {
    const transports = rpcTransports(harness.keyward.baseUrl);
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      const client = createClient(KeysService, transports[via]);
      const error = await client
        .createKey({ apiId: "", ratelimits: [{ name: "", limit: 10n, duration: 60_000n }] }, bearer(harness.keyward.rootKey))
        .then(() => undefined, (e: unknown) => ConnectError.from(e));
      expect({ via, code: error?.code }).toEqual({ via, code: Code.InvalidArgument });
      const [badRequest, ...others] = error?.findDetails(BadRequestSchema) ?? [];
      expect({ via, others }).toEqual({ via, others: [] });
      const fields = [...new Set(badRequest?.fieldViolations.map((v) => v.field))].sort();
      expect({ via, fields }).toEqual({ via, fields: ["api_id", "ratelimits[0].name"] });
      expect(badRequest?.fieldViolations.every((v) => v.description.length > 0)).toBe(true);
    }
  });

  it("carry no details when the failure is not about fields", async () => {
    const transports = rpcTransports(harness.keyward.baseUrl);
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      const error = await createClient(KeysService, transports[via])
        .getKey({ keyId: "key_unknown" }, bearer(harness.keyward.rootKey))
        .then(() => undefined, (e: unknown) => ConnectError.from(e));
      expect({ via, code: error?.code, details: error?.details.length }).toEqual({ via, code: Code.NotFound, details: 0 });
    }
  });
});
