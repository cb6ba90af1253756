import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport as fetchConnect, createGrpcWebTransport as fetchGrpcWeb } from "@connectrpc/connect-web";
import { describe, expect, it } from "vitest";
import { RatelimitService } from "../../gen/keyward/v1/ratelimits_pb.js";
import { plain } from "../support/ratelimit.js";
import { bearer, rpcTransports } from "../support/rpc.js";
import { useKeyward } from "../support/use-keyward.js";

const MINUTE = 60_000n;

describe("RatelimitService over generated Connect clients: fetch (connect-web) and node (Connect, gRPC, gRPC-Web)", () => {
  const harness = useKeyward();
  const transports = (): [string, Transport][] => {
    const baseUrl = harness.keyward.baseUrl;
    return [
      ["fetch Connect", fetchConnect({ baseUrl })],
      ["fetch gRPC-Web", fetchGrpcWeb({ baseUrl })],
      ...Object.entries(rpcTransports(baseUrl)).map(([name, t]): [string, Transport] => [`node ${name}`, t]),
    ];
  };

  it("every operation works the same on every client: limit, multiLimit, set/get/list/deleteOverride", async () => {
    const auth = bearer(harness.keyward.rootKey);
    const reset = BigInt(Math.floor(harness.clock.now() / 60_000) * 60_000 + 60_000);
    for (const [label, transport] of transports()) {
      const client = createClient(RatelimitService, transport);
      const namespace = `rpc.${label.replace(/\W/g, "-")}`;
      const limited = await client.limit({ namespace, identifier: "u", limit: 2n, duration: MINUTE }, auth);
      expect(plain(limited), label).toEqual({ limit: 2, remaining: 1, reset: Number(reset), success: true });

      const { overrideId } = await client.setOverride({ namespace, identifier: "u*", limit: 5n, duration: MINUTE }, auth);
      expect(overrideId, label).toMatch(/^rlor_/);
      expect(plain((await client.getOverride({ namespace, identifier: "u*" }, auth)).override), label)
        .toEqual({ overrideId, identifier: "u*", limit: 5, duration: 60_000 });

      const multi = await client.multiLimit({ limits: [
        { namespace, identifier: "u", limit: 2n, duration: MINUTE },
        { namespace: `${namespace}.b`, identifier: "u", limit: 1n, duration: MINUTE, cost: 2n },
      ] }, auth);
      expect(plain(multi), label).toEqual({
        passed: false,
        limits: [
          { namespace, identifier: "u", limit: 5, remaining: 4, reset: Number(reset), passed: true, overrideId },
          { namespace: `${namespace}.b`, identifier: "u", limit: 1, remaining: 1, reset: Number(reset), passed: false },
        ],
      });

      const listed = await client.listOverrides({ namespace }, auth);
      expect(plain(listed), label).toEqual({
        data: [{ overrideId, identifier: "u*", limit: 5, duration: 60_000 }], pagination: { hasMore: false }, total: 1,
      });
      await client.deleteOverride({ namespace, identifier: "u*" }, auth);
      const gone = await client.getOverride({ namespace, identifier: "u*" }, auth).catch((e) => ConnectError.from(e));
      expect(gone instanceof ConnectError && gone.code, label).toBe(Code.NotFound);
    }
  });
});
