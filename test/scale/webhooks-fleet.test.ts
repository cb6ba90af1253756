/**
 * Three Keyward processes on one MongoDB (the wire emulator) and a Redis Cluster share one webhook outbox: every
 * instance fans out the audit log and sees the usage signals of its own requests, and each message is sent by one of
 * them (a lease taken with findOneAndUpdate). The receiver counts distinct webhook-ids against the events made.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { restClient } from "../support/rest.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import { mongo } from "../support/mongo.js";
import { startFleet, type Fleet } from "./fleet.js";

let fleet: Fleet;
let receiver: Receiver;

beforeAll(async () => {
  if (mongo.skip) return; // no emulator: the suites below are skipped
  receiver = await startReceiver();
  fleet = await startFleet({
    count: 3, db: "kw_webhooks_fleet",
    env: { KEYWARD_ENCRYPTION_KEY: randomBytes(32).toString("base64"), KEYWARD_WEBHOOKS_ALLOW_PRIVATE: "true", KEYWARD_WEBHOOKS_RETRY_SCALE: "0.001" },
  });
}, 180_000);
afterAll(async () => {
  await fleet?.stop();
  await receiver?.close();
});

describe.skipIf(mongo.skip)(`webhooks on three instances over MongoDB and a Redis Cluster${mongo.skip}`, () => {
  it("delivers each message once: distinct webhook-ids equal the events, and no id arrives twice", async () => {
    const clients = fleet.instances.map((instance) => restClient(instance.baseUrl));
    const v2 = (i: number, op: string, body: unknown) => clients[i % clients.length]!.v2(op, body, fleet.rootKey);
    const created = await v2(0, "webhooks.createWebhook", {
      url: receiver.url, events: ["key.create", "key.credits.low", "key.ratelimited"], thresholds: { credits: [{ remaining: 10 }] },
    });
    expect(created.status).toBe(200);
    receiver.state.secrets.push(created.body.data.secret);
    const apiId = (await v2(1, "apis.createApi", { name: "fleet-hooks" })).body.data.apiId;
    // Each instance's index must know the endpoint before its requests start (the bus tells them at once).
    const keys = await Promise.all(Array.from({ length: 30 }, async (_, i) => (await v2(i, "keys.createKey", { apiId })).body.data.keyId as string));
    const credited = (await v2(2, "keys.createKey", { apiId, credits: { remaining: 40 } })).body.data;
    const limited = (await v2(0, "keys.createKey", { apiId, ratelimits: [{ name: "minute", limit: 3, duration: 60_000, autoApply: true }] })).body.data;
    const codes = await Promise.all(Array.from({ length: 50 }, (_, i) => v2(i, "keys.verifyKey", { key: credited.key })));
    expect(codes.filter((c) => c.body.data.code === "VALID")).toHaveLength(40);
    const limitedCodes = await Promise.all(Array.from({ length: 30 }, (_, i) => v2(i, "keys.verifyKey", { key: limited.key })));
    const refused = limitedCodes.filter((c) => c.body.data.code === "RATE_LIMITED").length;
    expect(refused).toBeGreaterThanOrEqual(27);

    const expected = { "key.create": 32, "key.credits.low": 1, "key.ratelimited": 1 };
    await vi.waitFor(() => {
      expect({
        "key.create": receiver.distinct("key.create").length,
        "key.credits.low": receiver.distinct("key.credits.low").length,
        "key.ratelimited": receiver.distinct("key.ratelimited").length,
      }).toEqual(expected);
    }, { timeout: 60_000, interval: 250 });
    const createdIds = receiver.distinct("key.create").map((r) => r.data.resources.find((x: any) => x.type === "key").id);
    expect(createdIds.sort()).toEqual([...keys, credited.keyId, limited.keyId].sort());
    // Once: every id arrived exactly one time (each message sent by one instance), and every signature verified.
    expect(receiver.received.length).toBe(receiver.distinct().length);
    expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
  }, 120_000);
});
