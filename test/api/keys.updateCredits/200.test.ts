import { describe, expect, it } from "vitest";
import { dataOf, keyState, verifyCode } from "../../support/key-state.js";
import type { Via } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.updateCredits", () => {
  const harness = useKeyward();
  const call = async (name: Via, keyId: string, operation: string, value?: number) =>
    dataOf("keys.updateCredits", await viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey)
      .call("keys.updateCredits", value === undefined ? { keyId, operation } : { keyId, operation, value }));
  const balance = async (keyId: string) => (await keyState(harness, keyId)).remaining;

  it("v2 answers the envelope with KeyCreditsData {remaining, refill}", async () => {
    const apiId = await harness.seed.api({ name: "shape" });
    const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 5, refill: { interval: "monthly", amount: 20, refillDay: 1 } } });
    const response = await harness.rest.v2("keys.updateCredits", { keyId, operation: "increment", value: 3 }, harness.keyward.rootKey);
    expect(response.body).toEqual({
      meta: { requestId: response.headers.get("x-request-id") },
      data: { remaining: 8, refill: { interval: "monthly", amount: 20, refillDay: 1 } },
    });
  });

  it("set, increment and decrement change the balance and answer the new one, on v2 and the RPC protocols", async () => {
    const apiId = await harness.seed.api({ name: "ops" });
    for (const name of V2_AND_RPC) {
      const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 10 } });
      expect(await call(name, keyId, "increment", 5)).toEqual({ remaining: 15 });
      expect(await call(name, keyId, "decrement", 4)).toEqual({ remaining: 11 });
      expect(await call(name, keyId, "set", 2)).toEqual({ remaining: 2 });
      expect(await call(name, keyId, "set", 0)).toEqual({ remaining: 0 });
      expect(await balance(keyId)).toBe(0);
    }
  });

  it("decrement clamps at 0", async () => {
    const apiId = await harness.seed.api({ name: "clamp" });
    for (const name of V2_AND_RPC) {
      const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 3 } });
      expect(await call(name, keyId, "decrement", 1000)).toEqual({ remaining: 0 });
      expect(await balance(keyId)).toBe(0);
    }
  });

  it("set without a value makes the key unlimited: v2 answers remaining null, getKey shows no credits", async () => {
    const apiId = await harness.seed.api({ name: "unlimit" });
    for (const name of V2_AND_RPC) {
      const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 1, refill: { interval: "daily", amount: 1 } } });
      const answer = await call(name, keyId, "set");
      expect(answer).toEqual(name === "v2" ? { remaining: null } : {});
      const got = await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey);
      expect(got.body.data.credits).toBeUndefined();
      expect(await keyState(harness, keyId)).toMatchObject({ remaining: undefined });
      expect((await keyState(harness, keyId)).record?.credits).toBeUndefined();
      for (let i = 0; i < 3; i++) expect(await verifyCode(harness, key)).toBe("VALID");
    }
  });

  it("set on an unlimited key starts a balance", async () => {
    const apiId = await harness.seed.api({ name: "start" });
    for (const name of V2_AND_RPC) {
      const { keyId, key } = await harness.seed.key(apiId);
      expect(await call(name, keyId, "set", 1)).toEqual({ remaining: 1 });
      expect([await verifyCode(harness, key), await verifyCode(harness, key)]).toEqual(["VALID", "USAGE_EXCEEDED"]);
    }
  });

  it("the next verification sees the new balance at once", async () => {
    const apiId = await harness.seed.api({ name: "live" });
    for (const name of V2_AND_RPC) {
      const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 2 } });
      expect(await verifyCode(harness, key)).toBe("VALID");
      await call(name, keyId, "decrement", 1);
      expect(await verifyCode(harness, key)).toBe("USAGE_EXCEEDED");
      await call(name, keyId, "increment", 2);
      expect([await verifyCode(harness, key), await verifyCode(harness, key), await verifyCode(harness, key)])
        .toEqual(["VALID", "VALID", "USAGE_EXCEEDED"]);
    }
  });

  it("v1 keys.updateRemaining takes {keyId, op, value} and answers {remaining}; value null with set makes it unlimited", async () => {
    const apiId = await harness.seed.api({ name: "remaining-v1" });
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 10 } });
    const v1 = async (body: Record<string, unknown>) => {
      const response = await harness.rest.v1Post("keys.updateRemaining", { keyId, ...body }, harness.keyward.rootKey);
      expect(response.status).toBe(200);
      return response.body;
    };
    expect(await v1({ op: "increment", value: 5 })).toEqual({ remaining: 15 });
    expect(await v1({ op: "decrement", value: 20 })).toEqual({ remaining: 0 });
    expect(await v1({ op: "set", value: 7 })).toEqual({ remaining: 7 });
    expect(await balance(keyId)).toBe(7);
    expect(await v1({ op: "set", value: null })).toEqual({ remaining: null });
    expect((await harness.rest.v1Get("keys.getKey", { keyId }, harness.keyward.rootKey)).body.remaining).toBeUndefined();
    expect(await verifyCode(harness, key)).toBe("VALID");
    expect(await v1({ op: "set", value: 1 })).toEqual({ remaining: 1 });
    expect((await harness.rest.v1Get("keys.getKey", { keyId }, harness.keyward.rootKey)).body.remaining).toBe(1);
  });
});
