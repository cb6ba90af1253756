import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { startReceiver, type Receiver } from "../../support/webhook-receiver.js";

const MINUTE = 60_000;

describe("webhook usage events", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32), webhooks: { allowPrivate: true, retryScale: 0.001 } });
  let receiver: Receiver;
  let apiId: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    apiId = await harness.seed.api({ name: "usage" });
  });
  afterAll(() => receiver.close());
  const v2 = (op: string, body: unknown) => harness.rest.v2(op, body, harness.keyward.rootKey);
  async function endpoint(events: string[], extra: Record<string, unknown> = {}) {
    const { webhookId, secret } = (await v2("webhooks.createWebhook", { url: receiver.url, events, ...extra })).body.data;
    receiver.state.secrets.push(secret);
    return webhookId as string;
  }
  const verify = async (key: string) => (await v2("keys.verifyKey", { key })).body.data.code as string;
  const verified = (type: string, keyId: string) => receiver.distinct(type).filter((r) => r.data.keyId === keyId);

  it("key.credits.low fires once per threshold when 50 concurrent verifications cross it, and again after a credit update", async () => {
    const webhookId = await endpoint(["key.credits.low"], { thresholds: { credits: [{ remaining: 40 }, { percent: 30 }] } });
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 70, refill: { interval: "daily", amount: 100 } } });
    const codes = await Promise.all(Array.from({ length: 50 }, () => verify(key)));
    expect(codes.filter((c) => c === "VALID")).toHaveLength(50);
    await vi.waitFor(() => expect(verified("key.credits.low", keyId)).toHaveLength(2), { timeout: 5000 });
    expect(verified("key.credits.low", keyId).map((r) => r.data.threshold).sort()).toEqual([30, 40]);
    for (const r of verified("key.credits.low", keyId)) {
      expect(r.verifiedBy).toHaveLength(1);
      expect(r.data).toMatchObject({ keyId, apiId, remaining: expect.any(Number) });
      expect(r.data.remaining).toBeLessThanOrEqual(r.data.threshold);
    }
    // Below both levels now: more verifications fire nothing; a credit update re-arms them.
    await Promise.all(Array.from({ length: 5 }, () => verify(key)));
    expect((await v2("keys.updateCredits", { keyId, operation: "set", value: 70 })).status).toBe(200);
    await Promise.all(Array.from({ length: 50 }, () => verify(key)));
    await vi.waitFor(() => expect(verified("key.credits.low", keyId)).toHaveLength(4), { timeout: 5000 });
    const deliveries = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
    expect(deliveries.filter((d: any) => d.type === "key.credits.low" && d.data.keyId === keyId)).toHaveLength(4);
  });

  it("key.credits.exhausted fires on the first USAGE_EXCEEDED only", async () => {
    await endpoint(["key.credits.exhausted"]);
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 2 } });
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await verify(key));
    expect(codes).toEqual(["VALID", "VALID", "USAGE_EXCEEDED", "USAGE_EXCEEDED", "USAGE_EXCEEDED", "USAGE_EXCEEDED"]);
    await vi.waitFor(() => expect(verified("key.credits.exhausted", keyId)).toHaveLength(1), { timeout: 5000 });
    expect(verified("key.credits.exhausted", keyId)[0].data).toEqual({ keyId, apiId, remaining: 0 });
  });

  it("key.ratelimited fires on the first refusal of each window, per key and limit", async () => {
    await endpoint(["key.ratelimited"]);
    const { keyId, key } = await harness.seed.key(apiId, { ratelimits: [{ name: "minute", limit: 2, duration: MINUTE, autoApply: true }] });
    const codes = await Promise.all(Array.from({ length: 10 }, () => verify(key)));
    expect(codes.filter((c) => c === "RATE_LIMITED")).toHaveLength(8);
    await vi.waitFor(() => expect(verified("key.ratelimited", keyId)).toHaveLength(1), { timeout: 5000 });
    expect(verified("key.ratelimited", keyId)[0].data).toMatchObject({ keyId, apiId, limit: { name: "minute", limit: 2, duration: MINUTE } });
    harness.clock.advance(2 * MINUTE);
    for (let i = 0; i < 5; i++) await verify(key);
    await vi.waitFor(() => expect(verified("key.ratelimited", keyId)).toHaveLength(2), { timeout: 5000 });
  });

  it("ratelimit.exceeded fires on the first refusal of a window per namespace and identifier", async () => {
    await endpoint(["ratelimit.exceeded"]);
    const check = (identifier: string) => v2("ratelimit.limit", { namespace: "hooked", identifier, limit: 1, duration: MINUTE });
    const answers = await Promise.all([...Array.from({ length: 6 }, () => check("u1")), ...Array.from({ length: 3 }, () => check("u2"))]);
    expect(answers.filter((a) => a.body.data.success === false)).toHaveLength(7);
    await vi.waitFor(() => expect(receiver.distinct("ratelimit.exceeded")).toHaveLength(2), { timeout: 5000 });
    expect(receiver.distinct("ratelimit.exceeded").map((r) => r.data.identifier).sort()).toEqual(["u1", "u2"]);
    expect(receiver.distinct("ratelimit.exceeded")[0].data).toMatchObject({ namespace: "hooked", namespaceId: expect.stringMatching(/^rlns_/), limit: 1, duration: MINUTE });
  });

  it("an endpoint bound to an api gets only that api's key events", async () => {
    const otherApi = await harness.seed.api({ name: "elsewhere" });
    const webhookId = await endpoint(["key.credits.exhausted"], { apiId: otherApi });
    const { key } = await harness.seed.key(apiId, { credits: { remaining: 0 } });
    expect(await verify(key)).toBe("USAGE_EXCEEDED");
    const bound = await harness.seed.key(otherApi, { credits: { remaining: 0 } });
    expect(await verify(bound.key)).toBe("USAGE_EXCEEDED");
    await vi.waitFor(async () => {
      const deliveries = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
      expect(deliveries.map((d: any) => d.data.keyId)).toEqual([bound.keyId]);
    }, { timeout: 5000 });
  });

  it("key.expiring fires the chosen time before expires and key.expired once it passed, each once", async () => {
    await endpoint(["key.expiring", "key.expired"], { thresholds: { credits: [], expiringBeforeMs: 3_600_000 } });
    const expires = harness.clock.now() + 2 * 3_600_000;
    const { keyId } = await harness.seed.key(apiId, { expires });
    harness.clock.advance(3_600_000 + 1);
    await vi.waitFor(() => expect(verified("key.expiring", keyId)).toHaveLength(1), { timeout: 5000 });
    expect(verified("key.expiring", keyId)[0].data).toEqual({ keyId, apiId, expires });
    expect(verified("key.expired", keyId)).toHaveLength(0);
    harness.clock.advance(3_600_000);
    await vi.waitFor(() => expect(verified("key.expired", keyId)).toHaveLength(1), { timeout: 5000 });
    expect(receiver.received.filter((r) => r.data?.keyId === keyId).map((r) => r.type).sort()).toEqual(["key.expired", "key.expiring"]);
  });
});
