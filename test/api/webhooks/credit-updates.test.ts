/**
 * The credit events against a key's credit updates: percent levels of keys without a refill count against the
 * credits last given (createKey, updateKey, updateCredits "set", import), and every credit update re-arms
 * `key.credits.exhausted`, on the instance that made it and on another one sharing the Redis.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys } from "../../support/key-state.js";
import { startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { restClient } from "../../support/rest.js";
import { startSecondInstance, type SecondInstance } from "../../support/second-instance.js";
import { useKeyward } from "../../support/use-keyward.js";
import { startReceiver, type Receiver } from "../../support/webhook-receiver.js";

const WEBHOOKS = { allowPrivate: true, retryScale: 0.001 };
// Webhook secrets are stored encrypted: every instance needs the same key.
const encryptionKey = randomBytes(32);

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
const deliveredFor = (type: string, keyId: string) => receiver.distinct(type).filter((r) => r.data.keyId === keyId);

describe("webhook credit events after credit updates", () => {
  const harness = useKeyward({ encryptionKey, webhooks: WEBHOOKS });
  let apiId: string;
  beforeAll(async () => {
    apiId = await harness.seed.api({ name: "credit-updates" });
  });
  const v2 = (op: string, body: unknown) => harness.rest.v2(op, body, harness.keyward.rootKey);
  async function endpoint(events: string[], extra: Record<string, unknown> = {}) {
    const created = await v2("webhooks.createWebhook", { url: receiver.url, events, ...extra });
    expect(created.status).toBe(200);
    receiver.state.secrets.push(created.body.data.secret);
  }
  const verifyTimes = async (key: string, times: number) => {
    const codes = await Promise.all(Array.from({ length: times }, async () => (await v2("keys.verifyKey", { key })).body.data.code as string));
    return codes.filter((c) => c === "VALID").length;
  };
  /** Two credits spent, then three refusals: a balance of 2 drained. */
  const drain = async (key: string) => {
    expect(await verifyTimes(key, 2)).toBe(2);
    expect(await verifyTimes(key, 3)).toBe(0);
  };
  const storedCredits = async (keyId: string) => (await apiKeys(harness, apiId)).find((k) => k.id === keyId)?.credits;
  const lowLevels = (keyId: string) => deliveredFor("key.credits.low", keyId).map((r) => [r.data.threshold, r.data.remaining]);

  it("a percent level of a key without a refill counts against its credits at creation, then against each new balance given", async () => {
    await endpoint(["key.credits.low"], { thresholds: { credits: [{ percent: 20 }] } });
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 100 } });
    expect(await storedCredits(keyId)).toEqual({ base: 100 });

    // 100 -> 20: the 20 % level (20) is crossed once, by one of 80 concurrent verifications.
    expect(await verifyTimes(key, 80)).toBe(80);
    await vi.waitFor(() => expect(lowLevels(keyId)).toEqual([[20, 20]]), { timeout: 5000 });
    const [low] = deliveredFor("key.credits.low", keyId);
    expect(low!.verifiedBy).toHaveLength(1); // standardwebhooks verified the signature with the endpoint's secret
    expect(low!.data).toEqual({ keyId, apiId, remaining: 20, threshold: 20 });
    expect(await verifyTimes(key, 5)).toBe(5);

    // A set of 50 makes 50 the base: its 20 % is 10, not crossed at 11, crossed at 10.
    expect((await v2("keys.updateCredits", { keyId, operation: "set", value: 50 })).status).toBe(200);
    expect(await storedCredits(keyId)).toEqual({ base: 50, changedAt: harness.clock.now() });
    expect(await verifyTimes(key, 39)).toBe(39);
    expect(await verifyTimes(key, 1)).toBe(1);
    await vi.waitFor(() => expect(lowLevels(keyId)).toEqual([[20, 20], [10, 10]]), { timeout: 5000 });

    // updateKey's credits.remaining gives a new base (60: level 12); an increment moves the balance, not the base.
    expect((await v2("keys.updateKey", { keyId, credits: { remaining: 60 } })).status).toBe(200);
    expect((await storedCredits(keyId))?.base).toBe(60);
    expect(await verifyTimes(key, 48)).toBe(48);
    await vi.waitFor(() => expect(lowLevels(keyId)).toHaveLength(3), { timeout: 5000 });
    expect((await v2("keys.updateCredits", { keyId, operation: "increment", value: 10 })).body.data.remaining).toBe(22);
    expect((await storedCredits(keyId))?.base).toBe(60);
    expect(await verifyTimes(key, 10)).toBe(10);
    await vi.waitFor(() => expect(lowLevels(keyId)).toEqual([[20, 20], [10, 10], [12, 12], [12, 12]]), { timeout: 5000 });
    expect(receiver.distinct("key.credits.low").every((r) => r.verifiedBy.length === 1)).toBe(true);
  });

  it("v1 keys.updateRemaining set gives the base too; setting only a refill keeps it, and the refill amount then counts", async () => {
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 100 } });
    const set = await harness.rest.v1Post("keys.updateRemaining", { keyId, op: "set", value: 30 }, harness.keyward.rootKey);
    expect(set.body).toEqual({ remaining: 30 });
    expect((await storedCredits(keyId))?.base).toBe(30);
    expect(await verifyTimes(key, 24)).toBe(24);
    await vi.waitFor(() => expect(lowLevels(keyId)).toEqual([[6, 6]]), { timeout: 5000 });
    // A daily refill of 200 (the balance left as it is, 6): the 20 % level is now 40, already below, so nothing fires.
    const refill = await v2("keys.updateKey", { keyId, credits: { refill: { interval: "daily", amount: 200 } }, updateMask: "credits.refill" });
    expect(refill.status).toBe(200);
    expect(await storedCredits(keyId)).toEqual({ refill: { interval: "daily", amount: 200 }, base: 30, changedAt: harness.clock.now() });
    expect((await v2("keys.updateCredits", { keyId, operation: "set", value: 41 })).status).toBe(200);
    expect(await verifyTimes(key, 1)).toBe(1);
    await vi.waitFor(() => expect(lowLevels(keyId)).toEqual([[6, 6], [40, 40]]), { timeout: 5000 });
  });

  it("an imported key's credits are its percent base", async () => {
    const imported = foreignKey("legacy");
    const answer = await v2("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [{ hash: imported.base64, credits: { remaining: 10 } }] });
    expect(answer.status).toBe(200);
    const keyId = answer.body.data.migrated[0].keyId as string;
    expect(await storedCredits(keyId)).toEqual({ base: 10 });
    expect(await verifyTimes(imported.plaintext, 8)).toBe(8);
    await vi.waitFor(() => expect(lowLevels(keyId)).toEqual([[2, 2]]), { timeout: 5000 });
  });

  it("key.credits.exhausted fires again after each credit update and a new drain, in the same refill period", async () => {
    await endpoint(["key.credits.exhausted"]);
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 2 } });
    await drain(key);
    await vi.waitFor(() => expect(deliveredFor("key.credits.exhausted", keyId)).toHaveLength(1), { timeout: 5000 });
    // The manual clock stands still: the re-arming cannot come from time, only from the credit update itself.
    expect((await v2("keys.updateCredits", { keyId, operation: "set", value: 2 })).status).toBe(200);
    await drain(key);
    await vi.waitFor(() => expect(deliveredFor("key.credits.exhausted", keyId)).toHaveLength(2), { timeout: 5000 });
    expect((await v2("keys.updateCredits", { keyId, operation: "increment", value: 2 })).status).toBe(200);
    await drain(key);
    await vi.waitFor(() => expect(deliveredFor("key.credits.exhausted", keyId)).toHaveLength(3), { timeout: 5000 });
    // Refusals without a credit update in between fire nothing more.
    expect(await verifyTimes(key, 3)).toBe(0);
    const delivered = deliveredFor("key.credits.exhausted", keyId);
    expect(delivered.map((r) => r.data)).toEqual([1, 2, 3].map(() => ({ keyId, apiId, remaining: 0 })));
    expect(delivered.every((r) => r.verifiedBy.length === 1)).toBe(true);
    expect(receiver.received.filter((r) => r.type === "key.credits.exhausted" && r.data.keyId === keyId)).toHaveLength(3);
  });

  it("key.credits.exhausted for a balance the key's identity shares fires again after updateIdentity gives it credits", async () => {
    // This endpoint's deliveries only (an earlier test's endpoint gets the same events): its secret verifies them.
    const mine = receiver.state.secrets.length;
    await endpoint(["key.credits.exhausted"]);
    const exhausted = (keyId: string) => deliveredFor("key.credits.exhausted", keyId).filter((r) => r.verifiedBy.includes(mine));
    const identityId = (await v2("identities.createIdentity", { externalId: "shared-exhausted", credits: { remaining: 2 } })).body.data.identityId;
    const created = await v2("keys.createKey", { apiId, externalId: "shared-exhausted" });
    expect(created.status).toBe(200);
    const { keyId, key } = created.body.data as { keyId: string; key: string };
    await drain(key);
    await vi.waitFor(() => expect(exhausted(keyId)).toHaveLength(1), { timeout: 5000 });
    // The key itself is untouched: only the identity's write (and the clock stands still) can re-arm the event.
    const topUp = await v2("identities.updateIdentity", { identity: identityId, credits: { remaining: 2 } });
    expect([topUp.status, topUp.body.data.credits]).toEqual([200, { remaining: 2 }]);
    await drain(key);
    await vi.waitFor(() => expect(exhausted(keyId)).toHaveLength(2), { timeout: 5000 });
    // Refusals without another update fire nothing more.
    expect(await verifyTimes(key, 3)).toBe(0);
    expect(receiver.received.filter((r) => r.type === "key.credits.exhausted" && r.data.keyId === keyId && r.verifiedBy.includes(mine))).toHaveLength(2);
    expect(exhausted(keyId).map((r) => r.data)).toEqual([{ keyId, apiId, remaining: 0 }, { keyId, apiId, remaining: 0 }]);
  });
});

describe("webhook credit events after a credit update on another instance", () => {
  let a: RunningKeyward;
  let b: SecondInstance;
  beforeAll(async () => {
    a = await startKeyward({ redisUrl: inject("redisUrl"), encryptionKey, webhooks: WEBHOOKS });
    b = await startSecondInstance(a, { redisUrl: inject("redisUrl"), encryptionKey, webhooks: WEBHOOKS });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it("a top-up through instance B re-arms key.credits.exhausted for verifications on instance A", async () => {
    const [onA, onB] = [restClient(a.baseUrl), restClient(b.baseUrl)];
    const created = await onA.v2("webhooks.createWebhook", { url: receiver.url, events: ["key.credits.exhausted"] }, a.rootKey);
    receiver.state.secrets.push(created.body.data.secret);
    const apiId = (await onA.v2("apis.createApi", { name: "two-instances" }, a.rootKey)).body.data.apiId;
    const { keyId, key } = (await onA.v2("keys.createKey", { apiId, credits: { remaining: 1 } }, a.rootKey)).body.data;
    const codeOn = async (client: typeof onA) => (await client.v2("keys.verifyKey", { key }, a.rootKey)).body.data.code as string;
    expect(await codeOn(onA)).toBe("VALID");
    expect([await codeOn(onA), await codeOn(onB)]).toEqual(["USAGE_EXCEEDED", "USAGE_EXCEEDED"]);
    await vi.waitFor(() => expect(deliveredFor("key.credits.exhausted", keyId)).toHaveLength(1), { timeout: 5000 });

    expect((await onB.v2("keys.updateCredits", { keyId, operation: "set", value: 1 }, a.rootKey)).status).toBe(200);
    // A learns of the update over the invalidation bus; until then it may still answer from its cached record.
    await vi.waitFor(async () => {
      await codeOn(onA);
      expect(deliveredFor("key.credits.exhausted", keyId)).toHaveLength(2);
    }, { timeout: 5000, interval: 50 });
    expect(await codeOn(onB)).toBe("USAGE_EXCEEDED");
    const delivered = deliveredFor("key.credits.exhausted", keyId);
    expect(delivered).toHaveLength(2);
    expect(receiver.received.filter((r) => r.type === "key.credits.exhausted" && r.data.keyId === keyId)).toHaveLength(2);
    expect(delivered.every((r) => r.verifiedBy.length === 1)).toBe(true);
  });
});
