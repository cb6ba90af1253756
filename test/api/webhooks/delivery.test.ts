import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { startReceiver, type Receiver } from "../../support/webhook-receiver.js";

/** The receiver is on 127.0.0.1, so private addresses are allowed here; retries are scaled down, the clock is manual. */
describe("webhook delivery", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32), webhooks: { allowPrivate: true, retryScale: 0.001 } });
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  const v2 = (op: string, body: unknown) => harness.rest.v2(op, body, harness.keyward.rootKey);
  async function endpoint(events: string[], extra: Record<string, unknown> = {}) {
    const { webhookId, secret } = (await v2("webhooks.createWebhook", { url: receiver.url, events, ...extra })).body.data;
    receiver.state.secrets.push(secret);
    return { webhookId, secret };
  }

  it("delivers audited changes under their action name, signed so standardwebhooks verifies them", async () => {
    await endpoint(["api.create", "key.create"]);
    const apiId = (await v2("apis.createApi", { name: "hooked" })).body.data.apiId;
    const { keyId } = (await v2("keys.createKey", { apiId })).body.data;
    await vi.waitFor(() => expect(receiver.distinct("key.create").length).toBe(1), { timeout: 5000 });
    const [api] = receiver.distinct("api.create");
    const [key] = receiver.distinct("key.create");
    expect(api.data).toMatchObject({ actor: expect.stringMatching(/^key_/), resources: [{ type: "api", id: apiId }], auditLogId: expect.stringMatching(/^log_/) });
    expect(key.data.resources).toContainEqual({ type: "key", id: keyId });
    expect(key.id).toMatch(/^msg_/);
    for (const r of [api, key]) expect(r.verifiedBy.length).toBe(1);
    expect(JSON.parse(key.body)).toEqual({ type: "key.create", timestamp: new Date(harness.clock.now()).toISOString(), data: key.data });
  });

  it("sendTest queues a webhook.test message, listed in listDeliveries as delivered with code and latency", async () => {
    const { webhookId } = await endpoint(["key.delete"]);
    const { messageId } = (await v2("webhooks.sendTest", { webhookId })).body.data;
    await vi.waitFor(() => expect(receiver.received.some((r) => r.id === messageId)).toBe(true), { timeout: 5000 });
    await vi.waitFor(async () => {
      const [delivery] = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
      expect(delivery).toMatchObject({ id: messageId, type: "webhook.test", status: "delivered", attempts: 1, responseCode: 200, latencyMs: expect.any(Number) });
    }, { timeout: 5000 });
    // Newest first, a page at a time.
    harness.clock.advance(1);
    const second = (await v2("webhooks.sendTest", { webhookId })).body.data.messageId;
    harness.clock.advance(1);
    const third = (await v2("webhooks.sendTest", { webhookId })).body.data.messageId;
    const first = (await v2("webhooks.listDeliveries", { webhookId, limit: 2 })).body;
    expect(first.data.map((d: any) => d.id)).toEqual([third, second]);
    expect(first.pagination).toEqual({ hasMore: true, cursor: expect.any(String) });
    const rest = (await v2("webhooks.listDeliveries", { webhookId, limit: 2, cursor: first.pagination.cursor })).body;
    expect(rest.data.map((d: any) => d.id)).toEqual([messageId]);
    expect(rest.pagination).toEqual({ hasMore: false });
  });

  it("retries a failing endpoint with backoff and delivers once it answers 2xx; redeliver sends the same id again", async () => {
    const { webhookId } = await endpoint(["identity.create"]);
    receiver.state.respond = (r) => (r.type === "identity.create" ? 503 : 200);
    await v2("identities.createIdentity", { externalId: "retry-me" });
    await vi.waitFor(() => expect(receiver.received.filter((r) => r.type === "identity.create").length).toBe(1), { timeout: 5000 });
    const [pending] = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
    expect(pending).toMatchObject({ status: "pending", attempts: 1, responseCode: 503, lastError: "HTTP 503", nextAttemptAt: expect.any(Number) });
    expect(pending.nextAttemptAt - harness.clock.now()).toBeGreaterThan(0);
    await vi.waitFor(async () => expect((await v2("webhooks.listDeliveries", { webhookId })).body.data[0].nextAttemptAt).toBeDefined(), { timeout: 5000 });
    receiver.state.respond = () => 200;
    harness.clock.advance(10);
    await vi.waitFor(async () => {
      const [delivery] = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
      expect(delivery).toMatchObject({ status: "delivered", attempts: 2, responseCode: 200 });
    }, { timeout: 5000 });
    const ids = receiver.received.filter((r) => r.type === "identity.create").map((r) => r.id);
    expect(new Set(ids).size).toBe(1);
    expect((await v2("webhooks.redeliver", { webhookId, messageId: pending.id })).status).toBe(200);
    await vi.waitFor(() => expect(receiver.received.filter((r) => r.id === pending.id).length).toBe(3), { timeout: 5000 });
    expect((await v2("webhooks.redeliver", { webhookId, messageId: "msg_unknown" })).status).toBe(404);
  });

  it("gives up after the last retry: the message fails, the endpoint is disabled and webhook.disabled is sent", async () => {
    const watcher = await endpoint(["webhook.disabled"]);
    const { webhookId } = await endpoint(["role.create"]);
    receiver.state.respond = (r) => (r.type === "role.create" ? 500 : 200);
    await v2("permissions.createRole", { name: "doomed" });
    for (let attempt = 1; attempt <= 8; attempt++) {
      await vi.waitFor(() => expect(receiver.received.filter((r) => r.type === "role.create").length).toBe(attempt), { timeout: 5000 });
      // Recorded before the clock moves: the next attempt is scheduled from the time the answer came.
      await vi.waitFor(async () => expect((await v2("webhooks.listDeliveries", { webhookId })).body.data[0].attempts).toBe(attempt), { timeout: 5000 });
      harness.clock.advance(50_000); // past the longest scaled delay (36 000 000 ms × 0.001, +20 % jitter at most)
    }
    await vi.waitFor(() => expect(receiver.distinct("webhook.disabled").map((r) => r.data.webhookId)).toEqual([webhookId]), { timeout: 5000 });
    const webhook = (await v2("webhooks.getWebhook", { webhookId })).body.data;
    expect(webhook).toMatchObject({ enabled: false, disabledReason: "failing" });
    const [delivery] = (await v2("webhooks.listDeliveries", { webhookId, status: "failed" })).body.data;
    expect(delivery).toMatchObject({ type: "role.create", status: "failed", attempts: 8, responseCode: 500 });
    expect(watcher.webhookId).not.toBe(webhookId);
    receiver.state.respond = () => 200;
  });

  it("during a rotation's overlap every message verifies with the old secret and with the new one", async () => {
    const { webhookId, secret: old } = await endpoint(["permission.create"]);
    const { secret: fresh } = (await v2("webhooks.rotateSecret", { webhookId })).body.data;
    receiver.state.secrets.push(fresh);
    await v2("permissions.createPermission", { name: "rotated", slug: "rotated" });
    await vi.waitFor(() => expect(receiver.distinct("permission.create").length).toBe(1), { timeout: 5000 });
    const [message] = receiver.distinct("permission.create");
    expect(String(message.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    const oldIndex = receiver.state.secrets.indexOf(old);
    const newIndex = receiver.state.secrets.indexOf(fresh);
    expect(message.verifiedBy.sort()).toEqual([oldIndex, newIndex].sort());
    // After 24 hours only the new secret signs.
    harness.clock.advance(86_400_001);
    const { messageId } = (await v2("webhooks.sendTest", { webhookId })).body.data;
    await vi.waitFor(() => expect(receiver.received.some((r) => r.id === messageId)).toBe(true), { timeout: 5000 });
    expect(receiver.received.find((r) => r.id === messageId)!.verifiedBy).toEqual([newIndex]);
  });

  it("a paused endpoint gets nothing; its messages wait and are delivered once it is resumed", async () => {
    const { webhookId } = await endpoint(["api.update"]);
    const apiId = (await v2("apis.createApi", { name: "paused" })).body.data.apiId;
    await v2("webhooks.updateWebhook", { webhookId, enabled: false });
    await v2("apis.updateApi", { apiId, name: "while-paused" });
    await vi.waitFor(async () => {
      const [held] = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
      expect(held).toMatchObject({ type: "api.update", status: "pending", attempts: 0 });
      expect(held.nextAttemptAt).toBeGreaterThan(harness.clock.now());
    }, { timeout: 5000 });
    expect(receiver.distinct("api.update")).toEqual([]);
    await v2("webhooks.updateWebhook", { webhookId, enabled: true });
    await v2("apis.updateApi", { apiId, name: "after-resume" });
    harness.clock.advance(1000); // past the paused endpoint's (scaled) recheck
    await vi.waitFor(() => expect(receiver.distinct("api.update").length).toBe(2), { timeout: 5000 });
    const deliveries = (await v2("webhooks.listDeliveries", { webhookId })).body.data;
    expect(deliveries.map((d: any) => d.status)).toEqual(["delivered", "delivered"]);
  });
});
