import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, connect, grpc, restV1, restV2, viaClient } from "../../support/vias.js";
import type { Via } from "../../support/operations.js";

/** What one read operation says about a key's last use, on one transport (undefined: the field is absent). */
type Reader = (via: Via, key: { apiId: string; keyId: string; key: string }) => Promise<number | undefined>;

describe("lastUsedAt on keys.getKey, keys.whoami and apis.listKeys", () => {
  const harness = useKeyward();
  const client = (via: Via, rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, via, rootKey);
  const flushEvents = () => harness.keyward.stores.events.flush();

  const readers: Record<string, Reader> = {
    getKey: async (via, k) => dataOf("keys.getKey", await client(via).call("keys.getKey", { keyId: k.keyId })).lastUsedAt,
    whoami: async (via, k) => dataOf("keys.whoami", await client(via).call("keys.whoami", { key: k.key })).lastUsedAt,
    listKeys: async (via, k) => {
      const listed = dataOf("apis.listKeys", await client(via).call("apis.listKeys", { apiId: k.apiId }));
      // v2 REST: the data array; v1: {keys, total}; RPC: {data, pagination, total}.
      const keys: Record<string, any>[] = Array.isArray(listed) ? listed : (listed.keys ?? listed.data);
      const found = keys.find((item) => (item.keyId ?? item.id) === k.keyId);
      expect(found).toBeDefined();
      return found!.lastUsedAt;
    },
  };

  /** Every read operation on every transport: [operation/transport, lastUsedAt]. */
  async function everyRead(k: { apiId: string; keyId: string; key: string }) {
    const seen: [string, number | undefined][] = [];
    for (const [name, read] of Object.entries(readers)) {
      for (const via of ALL_VIAS) seen.push([`${name}/${via}`, await read(via, k)]);
    }
    return seen;
  }
  const everywhere = (value: number | undefined) =>
    Object.keys(readers).flatMap((name) => ALL_VIAS.map((via): [string, number | undefined] => [`${name}/${via}`, value]));

  async function freshKey(name: string, fields: Record<string, unknown> = {}) {
    const apiId = await harness.seed.api({ name });
    return { apiId, ...(await harness.seed.key(apiId, fields)) };
  }

  /** Verifies `key` on one transport and returns the code it answered. */
  async function verifyVia(via: Via, key: string): Promise<string> {
    if (via === restV1) {
      const response = await harness.rest.v1Post("keys.verifyKey", { key });
      expect(response.status).toBe(200);
      return response.body.code;
    }
    return dataOf("keys.verifyKey", await client(via).call("keys.verifyKey", { key })).code;
  }

  it("is absent on every read and transport for a key that was never verified", async () => {
    const k = await freshKey("never");
    await flushEvents();
    expect(await everyRead(k)).toStrictEqual(everywhere(undefined));
  });

  for (const via of [restV1, restV2, connect, grpc]) {
    it(`after a verification over ${via}, every read on every transport shows its time once the events are written`, async () => {
      const k = await freshKey(`verified-${via}`);
      harness.clock.advance(1000);
      const verifiedAt = harness.clock.now();
      expect(await verifyVia(via, k.key)).toBe("VALID");
      harness.clock.advance(250); // reads later than the verification still show the verification's time
      await flushEvents();
      expect(await everyRead(k)).toStrictEqual(everywhere(verifiedAt));
    });
  }

  it("moves forward with a later verification, whatever its outcome", async () => {
    const k = await freshKey("later", { credits: { remaining: 1 } });
    expect(await verifyVia(restV2, k.key)).toBe("VALID");
    harness.clock.advance(5000);
    expect(await verifyVia(grpc, k.key)).toBe("USAGE_EXCEEDED");
    await flushEvents();
    expect(await readers.getKey!(restV2, k)).toBe(harness.clock.now());
  });

  it("shows without an explicit flush within the flush interval (the documented bound is 60 s; here about 1 s)", async () => {
    const k = await freshKey("timer");
    const verifiedAt = harness.clock.now();
    const started = Date.now();
    expect(await verifyVia(connect, k.key)).toBe("VALID");
    let seen: number | undefined;
    while (seen === undefined && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await readers.getKey!(grpc, k);
    }
    expect(seen).toBe(verifiedAt);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("a NOT_FOUND verification does not set it: another workspace's root key, a root key of another api, an unknown key", async () => {
    const k = await freshKey("hidden");
    const other = await harness.seed.workspace("lastused-other");
    const otherApi = await harness.seed.api({ name: "elsewhere" });
    const { key: narrow } = await harness.seed.rootKey([`api.${otherApi}.verify_key`]);
    for (const rootKey of [other.rootKey.key, narrow]) {
      const response = await harness.rest.v2("keys.verifyKey", { key: k.key }, rootKey);
      expect(response.body.data).toEqual({ valid: false, code: "NOT_FOUND" });
    }
    expect(await verifyVia(restV1, `${k.key}x`)).toBe("NOT_FOUND");
    await flushEvents();
    expect(await everyRead(k)).toStrictEqual(everywhere(undefined));
  });

  it("another workspace cannot read it: getKey and whoami answer 404, listKeys of the api 404", async () => {
    const k = await freshKey("private");
    expect(await verifyVia(restV2, k.key)).toBe("VALID");
    await flushEvents();
    const other = await harness.seed.workspace("lastused-reader");
    for (const via of ALL_VIAS) {
      const as = client(via, other.rootKey.key);
      await as.fails("keys.getKey", { keyId: k.keyId }, "not_found");
      await as.fails("keys.whoami", { key: k.key }, "not_found");
      await as.fails("apis.listKeys", { apiId: k.apiId }, "not_found");
    }
  });

  it("a root key without read_key gets 403 naming api.*.read_key, and no key data", async () => {
    const k = await freshKey("forbidden");
    expect(await verifyVia(restV2, k.key)).toBe("VALID");
    await flushEvents();
    const { key: verifier } = await harness.seed.rootKey(["api.*.verify_key"]);
    for (const via of ALL_VIAS) {
      const as = client(via, verifier);
      for (const [op, input] of [["keys.getKey", { keyId: k.keyId }], ["keys.whoami", { key: k.key }], ["apis.listKeys", { apiId: k.apiId }]] as const) {
        const outcome = await as.fails(op, input, "forbidden", { detail: "api.*.read_key" });
        expect(JSON.stringify(outcome)).not.toContain("lastUsedAt");
      }
    }  });
});
