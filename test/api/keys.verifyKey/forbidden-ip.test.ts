import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { Unkey } from "unkey-v2";
import { describe, expect, it } from "vitest";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { useKeyward } from "../../support/use-keyward.js";

/**
 * The server listens on `::`, so a client on 127.0.0.1 reaches it as ::ffff:127.0.0.1 and one on ::1 as ::1; ::1 is
 * its one trusted proxy (KEYWARD_TRUSTED_PROXIES), so forwarding headers sent from ::1 name the client, and the same
 * headers from 127.0.0.1 are ignored.
 */
const FROM = { v4: "127.0.0.1", v6: "[::1]" } as const;
type From = keyof typeof FROM;

/** Every door to verification: REST v2, v1, legacy v1, and the RPC protocols over HTTP/1.1 and HTTP/2. */
const VIAS = ["v2", "v1", "legacy", "connect", "connectH2", "grpc", "grpcWeb"] as const;
type Via = (typeof VIAS)[number];
const REST_PATHS = { v2: "/v2/keys.verifyKey", v1: "/v1/keys.verifyKey", legacy: "/v1/keys/verify" } as const;

describe("keys.verifyKey FORBIDDEN (IP allow-list) against the client's real address", () => {
  const harness = useKeyward({ host: "::", trustedProxies: "::1" });
  const baseUrl = (from: From) => `http://${FROM[from]}:${harness.keyward.port}`;

  function rpcTransport(via: Exclude<Via, "v2" | "v1" | "legacy">, from: From) {
    const url = baseUrl(from);
    if (via === "connect") return createConnectTransport({ baseUrl: url, httpVersion: "1.1" });
    if (via === "connectH2") return createConnectTransport({ baseUrl: url, httpVersion: "2" });
    if (via === "grpc") return createGrpcTransport({ baseUrl: url });
    return createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" });
  }

  /** Verifies `key` over `via` from `from` with extra request headers; the verification code. */
  async function codeOf(via: Via, from: From, key: string, headers: Record<string, string> = {}): Promise<string> {
    const authorization = `Bearer ${harness.keyward.rootKey}`;
    if (via === "v2" || via === "v1" || via === "legacy") {
      const response = await fetch(`${baseUrl(from)}${REST_PATHS[via]}`, {
        method: "POST", headers: { "content-type": "application/json", ...(via === "v2" && { authorization }), ...headers }, body: JSON.stringify({ key }),
      });
      expect(response.status).toBe(200);
      const body = await response.json();
      return via === "v2" ? body.data.code : body.code;
    }
    const client = createClient(KeysService, rpcTransport(via, from));
    return (await client.verifyKey({ key }, { headers: { authorization, ...headers } })).code;
  }

  /** The codes of every door from `from`, keyed by door. */
  async function codesFrom(from: From, key: string, headers: Record<string, string> = {}) {
    const codes: Record<string, string> = {};
    for (const via of VIAS) codes[via] = await codeOf(via, from, key, headers);
    return codes;
  }
  const all = (code: string) => Object.fromEntries(VIAS.map((via) => [via, code]));

  async function keyBehind(ipWhitelist: string[], fields: Record<string, unknown> = {}) {
    const apiId = await harness.seed.api({ name: "allow-listed" });
    expect((await harness.rest.v2("apis.updateApi", { apiId, ipWhitelist }, harness.keyward.rootKey)).status).toBe(200);
    return { apiId, ...(await harness.seed.key(apiId, fields)) };
  }

  it("IPv4 entry: VALID from 127.0.0.1 (seen as ::ffff:127.0.0.1 by the dual-stack socket), FORBIDDEN from ::1, on every door", async () => {
    const { key } = await keyBehind(["127.0.0.1"]);
    expect(await codesFrom("v4", key)).toEqual(all("VALID"));
    expect(await codesFrom("v6", key)).toEqual(all("FORBIDDEN"));
  });

  it("IPv6 entry: VALID from ::1, FORBIDDEN from 127.0.0.1, on every door", async () => {
    const { key } = await keyBehind(["::1"]);
    expect(await codesFrom("v6", key)).toEqual(all("VALID"));
    expect(await codesFrom("v4", key)).toEqual(all("FORBIDDEN"));
  });

  it("CIDR ranges of both families: an address inside verifies, one outside is FORBIDDEN", async () => {
    const { key } = await keyBehind(["127.0.0.0/8", "2001:db8::/32"]);
    expect(await codesFrom("v4", key)).toEqual(all("VALID"));
    // From the trusted proxy: the forwarded client decides.
    expect(await codesFrom("v6", key, { "x-forwarded-for": "2001:db8:1234::5" })).toEqual(all("VALID"));
    expect(await codesFrom("v6", key, { "x-forwarded-for": "2001:db9::5" })).toEqual(all("FORBIDDEN"));
    expect(await codesFrom("v6", key)).toEqual(all("FORBIDDEN")); // ::1 itself is outside both ranges
  });

  it("a trusted proxy's X-Forwarded-For and Forwarded name the client: its right-most untrusted hop", async () => {
    const { key } = await keyBehind(["198.51.100.0/24"]);
    expect(await codesFrom("v6", key, { "x-forwarded-for": "198.51.100.77" })).toEqual(all("VALID"));
    expect(await codesFrom("v6", key, { forwarded: 'for="198.51.100.77:4711";proto=https' })).toEqual(all("VALID"));
    // Hops the client wrote itself (left of the one the proxy saw) prove nothing.
    expect(await codesFrom("v6", key, { "x-forwarded-for": "198.51.100.77, 203.0.113.9" })).toEqual(all("FORBIDDEN"));
    // Trusted proxies in the chain are skipped.
    expect(await codesFrom("v6", key, { "x-forwarded-for": "198.51.100.77, ::1" })).toEqual(all("VALID"));
    // Forwarded wins over X-Forwarded-For; an unknown client is allowed nowhere.
    expect(await codesFrom("v6", key, { forwarded: "for=203.0.113.9", "x-forwarded-for": "198.51.100.77" })).toEqual(all("FORBIDDEN"));
    expect(await codesFrom("v6", key, { forwarded: "for=unknown" })).toEqual(all("FORBIDDEN"));
  });

  it("a spoofed X-Forwarded-For or Forwarded from an untrusted peer changes nothing", async () => {
    const outside = await keyBehind(["198.51.100.0/24"]);
    const spoof = { "x-forwarded-for": "198.51.100.77", forwarded: "for=198.51.100.77" };
    expect(await codesFrom("v4", outside.key, spoof)).toEqual(all("FORBIDDEN"));
    const inside = await keyBehind(["127.0.0.1"]);
    expect(await codesFrom("v4", inside.key, { "x-forwarded-for": "203.0.113.9", forwarded: "for=203.0.113.9" })).toEqual(all("VALID"));
  });

  it("FORBIDDEN spends nothing and comes after DISABLED and EXPIRED; a changed list applies at once to a cached key", async () => {
    const { apiId, key, keyId } = await keyBehind(["::1"], { credits: { remaining: 3 } });
    expect(await codesFrom("v4", key)).toEqual(all("FORBIDDEN"));
    const read = async () => (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data.credits.remaining;
    expect(await read()).toBe(3);
    // The key is cached by now; the new list reaches the verification path anyway.
    expect((await harness.rest.v2("apis.updateApi", { apiId, ipWhitelist: ["127.0.0.1"] }, harness.keyward.rootKey)).status).toBe(200);
    expect(await codeOf("grpc", "v4", key)).toBe("VALID");
    expect(await codeOf("grpc", "v6", key)).toBe("FORBIDDEN");
    expect(await read()).toBe(2);
    expect((await harness.rest.v2("apis.updateApi", { apiId, ipWhitelist: null }, harness.keyward.rootKey)).status).toBe(200);
    expect(await codeOf("connect", "v6", key)).toBe("VALID");

    const disabled = await keyBehind(["::1"], { enabled: false });
    expect(await codesFrom("v4", disabled.key)).toEqual(all("DISABLED"));
    const expiring = await keyBehind(["::1"], { expires: harness.clock.now() + 1000 });
    harness.clock.advance(2000);
    expect(await codesFrom("v4", expiring.key)).toEqual(all("EXPIRED"));
  });

  it("Unkey's v2 SDK sees the same: VALID from ::1, FORBIDDEN from 127.0.0.1", async () => {
    const { key } = await keyBehind(["::1"]);
    const sdk = (from: From) => new Unkey({ rootKey: harness.keyward.rootKey, serverURL: baseUrl(from), retryConfig: { strategy: "none" } });
    const v6 = (await sdk("v6").keys.verifyKey({ key })).data;
    const v4 = (await sdk("v4").keys.verifyKey({ key })).data;
    expect([v6.valid, v6.code, v4.valid, v4.code]).toEqual([true, "VALID", false, "FORBIDDEN"]);
  });
});
