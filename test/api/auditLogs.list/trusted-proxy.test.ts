import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { useKeyward } from "../../support/use-keyward.js";

/**
 * The audit log's client address behind a proxy. The server listens on `::` with ::1 as its one trusted proxy
 * (KEYWARD_TRUSTED_PROXIES): a change made from ::1 is recorded with the client the forwarding headers name, one made
 * from 127.0.0.1 with 127.0.0.1 whatever its headers claim (as the IP allow-list judges it, forbidden-ip.test.ts).
 */
const FROM = { v4: "127.0.0.1", v6: "[::1]" } as const;

describe("auditLogs.list: the recorded address of a change made through a trusted proxy", () => {
  const harness = useKeyward({ host: "::", trustedProxies: "::1" });
  const baseUrl = (from: keyof typeof FROM) => `http://${FROM[from]}:${harness.keyward.port}`;

  /** Creates an api over REST v2 from `from` with extra headers; the address its audit record holds (undefined: none). */
  async function recordedAddress(from: keyof typeof FROM, headers: Record<string, string>): Promise<string | undefined> {
    const created = await fetch(`${baseUrl(from)}/v2/apis.createApi`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${harness.keyward.rootKey}`, ...headers },
      body: JSON.stringify({ name: "behind-a-proxy" }),
    });
    expect(created.status).toBe(200);
    const { apiId } = (await created.json()).data;
    const [record] = (await harness.rest.v2("auditLogs.list", { resourceId: apiId }, harness.keyward.rootKey)).body.data;
    expect(record.action).toBe("api.create");
    return record.remoteAddress;
  }

  it("records the client a trusted proxy forwards (X-Forwarded-For, Forwarded), in canonical form", async () => {
    expect(await recordedAddress("v6", { "x-forwarded-for": "203.0.113.7" })).toBe("203.0.113.7");
    expect(await recordedAddress("v6", { "x-forwarded-for": "198.51.100.9, 203.0.113.8" })).toBe("203.0.113.8");
    expect(await recordedAddress("v6", { forwarded: 'for="[2001:db8::1]"' })).toBe("2001:db8::1");
    expect(await recordedAddress("v6", { "x-forwarded-for": "::ffff:203.0.113.10" })).toBe("203.0.113.10");
    // No forwarding header: the proxy itself was the client.
    expect(await recordedAddress("v6", {})).toBe("::1");
  });

  it("ignores forwarding headers from a peer that is not a trusted proxy: the peer is recorded", async () => {
    expect(await recordedAddress("v4", { "x-forwarded-for": "203.0.113.7" })).toBe("127.0.0.1");
    expect(await recordedAddress("v4", { forwarded: "for=203.0.113.7" })).toBe("127.0.0.1");
    expect(await recordedAddress("v4", {})).toBe("127.0.0.1");
  });

  it("leaves the address out when the trusted proxy names no address", async () => {
    expect(await recordedAddress("v6", { "x-forwarded-for": "unknown" })).toBeUndefined();
    expect(await recordedAddress("v6", { forwarded: "for=_hidden" })).toBeUndefined();
  });

  it("records the forwarded client of a change made over gRPC too", async () => {
    const client = createClient(ApisService, createGrpcTransport({ baseUrl: baseUrl("v6") }));
    const { apiId } = await client.createApi(
      { name: "grpc-behind-a-proxy" },
      { headers: { authorization: `Bearer ${harness.keyward.rootKey}`, "x-forwarded-for": "203.0.113.20" } },
    );
    const [record] = (await harness.rest.v2("auditLogs.list", { resourceId: apiId }, harness.keyward.rootKey)).body.data;
    expect(record).toMatchObject({ action: "api.create", remoteAddress: "203.0.113.20" });
  });
});
