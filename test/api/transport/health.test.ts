import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../../gen/grpc/health/v1/health_pb.js";
import { rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("grpc.health.v1.Health", () => {
  const harness = useKeyward();
  const clients = () => Object.entries(rpcTransports(harness.keyward.baseUrl)).map(([via, t]) => [via, createClient(Health, t)] as const);

  it("Check answers SERVING for the whole server (\"\") and for each Keyward service, on every RPC protocol", async () => {
    for (const [via, health] of clients()) {
      for (const service of ["", "keyward.v1.ApisService", "keyward.v1.RootKeysService", "keyward.v1.WorkspacesService"]) {
        const response = await health.check({ service });
        expect({ via, service, status: Status[response.status] }).toEqual({ via, service, status: "SERVING" });
      }
    }
  });

  it("Check answers NOT_FOUND for a service Keyward does not serve", async () => {
    for (const [via, health] of clients()) {
      for (const service of ["keyward.v1.Nope", "grpc.health.v1.Nope"]) {
        const error = await health.check({ service }).then(() => undefined, (e: unknown) => ConnectError.from(e));
        expect({ via, service, code: error && Code[error.code] }).toEqual({ via, service, code: "NotFound" });
        expect(error?.rawMessage).toBe(`unknown service ${service}`);
      }
    }
  });

  it("needs no root key", async () => {
    const [, health] = clients()[1];
    const response = await health.check({ service: "" }, { headers: { authorization: "Bearer kw_root_unknown" } });
    expect(Status[response.status]).toBe("SERVING");
  });
});
