import { expect, it } from "vitest";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { KeyRecord } from "../../src/store/ports/key-records.js";
import type { WebhookMessageRecord, WebhookRecord } from "../../src/store/ports/webhooks.js";

const T = 1_700_000_000_000;

const webhook = (n: number, overrides: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id: `wh_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", url: `https://example.com/${n}`, events: ["key.create"],
  thresholds: { credits: [{ remaining: 5 }] }, enabled: true, secrets: [{ iv: "aQ==", ciphertext: "Yw==", tag: "dA==" }], createdAt: T + n,
  ...overrides,
});

const message = (n: number, overrides: Partial<WebhookMessageRecord> = {}): WebhookMessageRecord => ({
  id: `msg_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", webhookId: "wh_0001", type: "key.create", createdAt: T + n,
  data: { n }, status: "pending", attempts: 0, nextAttemptAt: T + n, history: [], ...overrides,
});

/** The WebhookStore and WebhookMessageStore part of the document contract; runDocumentStoreContract calls it. */
export function webhooksContract(fresh: () => Promise<DocumentStore>): void {
  it("webhook endpoints: get, list and replace within their workspace; delete removes them", async () => {
    const store = await fresh();
    await store.webhooks.insert(webhook(1));
    await store.webhooks.insert(webhook(2));
    await store.webhooks.insert(webhook(3, { workspaceId: "ws_b" }));
    expect(await store.webhooks.get("ws_a", "wh_0001")).toEqual(webhook(1));
    expect(await store.webhooks.get("ws_b", "wh_0001")).toBeUndefined();
    expect((await store.webhooks.list("ws_a", { limit: 10 })).map((w) => w.id)).toEqual(["wh_0001", "wh_0002"]);
    expect((await store.webhooks.list("ws_a", { limit: 10, after: "wh_0001" })).map((w) => w.id)).toEqual(["wh_0002"]);
    expect((await store.webhooks.all({ limit: 10 })).map((w) => w.id)).toEqual(["wh_0001", "wh_0002", "wh_0003"]);
    expect(await store.webhooks.replace({ ...webhook(1), enabled: false, disabledReason: "paused" })).toBe(true);
    expect(await store.webhooks.get("ws_a", "wh_0001")).toMatchObject({ enabled: false, disabledReason: "paused" });
    expect(await store.webhooks.replace(webhook(3))).toBe(false); // it lives in ws_b
    expect(await store.webhooks.delete("ws_b", "wh_0001")).toBe(false);
    expect(await store.webhooks.delete("ws_a", "wh_0001")).toBe(true);
    expect(await store.webhooks.get("ws_a", "wh_0001")).toBeUndefined();
  });

  it("the outbox stores a message id once, keeps the fan-out cursor, and leases each due message to one owner", async () => {
    const store = await fresh();
    const outbox = store.webhookMessages;
    expect(await outbox.cursor()).toBeUndefined();
    await outbox.enqueue([message(1), message(2), message(3, { nextAttemptAt: T + 1000 })], { cursor: "log_0002" });
    await outbox.enqueue([message(1, { data: { again: true } }), message(4)], { cursor: "log_0004" });
    expect(await outbox.cursor()).toBe("log_0004");
    expect((await outbox.get("ws_a", "msg_0001"))?.data).toEqual({ n: 1 });
    expect(await outbox.get("ws_b", "msg_0001")).toBeUndefined();

    const [a, b] = await Promise.all([outbox.claimDue("a", T + 10, 60_000, 10), outbox.claimDue("b", T + 10, 60_000, 10)]);
    const taken = [...a, ...b].map((m) => m.id).sort();
    expect(taken).toEqual(["msg_0001", "msg_0002", "msg_0004"]);
    expect(await outbox.claimDue("c", T + 10, 60_000, 10)).toEqual([]);
    const owner = a.some((m) => m.id === "msg_0001") ? "a" : "b";
    expect(await outbox.settle("msg_0001", owner === "a" ? "b" : "a", { status: "delivered", attempts: 1, nextAttemptAt: T })).toBe(false);
    const attempt = { at: T + 20, latencyMs: 4, responseCode: 503, error: "HTTP 503" };
    expect(await outbox.settle("msg_0001", owner, { status: "pending", attempts: 1, nextAttemptAt: T + 100, attempt })).toBe(true);
    expect(await outbox.get("ws_a", "msg_0001")).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: T + 100, history: [attempt] });
    expect((await outbox.claimDue("c", T + 100, 60_000, 10)).map((m) => m.id)).toEqual(["msg_0001"]);
  });

  it("deliveries list newest first by endpoint and status; retry makes a message due again; prune drops old finished ones", async () => {
    const store = await fresh();
    const outbox = store.webhookMessages;
    await outbox.enqueue([message(1), message(2), message(3), message(4, { webhookId: "wh_0002" })]);
    const claimed = await outbox.claimDue("a", T + 10, 60_000, 10);
    expect(claimed).toHaveLength(4);
    await outbox.settle("msg_0001", "a", { status: "delivered", attempts: 1, nextAttemptAt: T + 5, deliveredAt: T + 5, finishedAt: T + 5 });
    await outbox.settle("msg_0002", "a", { status: "failed", attempts: 8, nextAttemptAt: T + 50, finishedAt: T + 50 });
    const list = (query: object) => outbox.listByWebhook("ws_a", "wh_0001", { limit: 10, ...query }).then((ms) => ms.map((m) => m.id));
    expect(await list({})).toEqual(["msg_0003", "msg_0002", "msg_0001"]);
    expect(await list({ limit: 1, before: "msg_0003" })).toEqual(["msg_0002"]);
    expect(await list({ status: "delivered" })).toEqual(["msg_0001"]);
    expect(await outbox.listByWebhook("ws_b", "wh_0001", { limit: 10 })).toEqual([]);
    expect(await outbox.retry("ws_b", "msg_0002", T + 60)).toBe(false);
    expect(await outbox.retry("ws_a", "msg_0002", T + 60)).toBe(true);
    expect(await outbox.get("ws_a", "msg_0002")).toMatchObject({ status: "pending", nextAttemptAt: T + 60 });
    expect((await outbox.claimDue("b", T + 60, 60_000, 10)).map((m) => m.id)).toEqual(["msg_0002"]);
    expect(await outbox.prune(T + 6)).toBe(1);
    expect(await outbox.get("ws_a", "msg_0001")).toBeUndefined();
    expect(await outbox.get("ws_a", "msg_0003")).toBeDefined();
  });

  it("keyExpiries finds live keys expiring in a range, in expiry order, across hours", async () => {
    const store = await fresh();
    const HOUR = 3_600_000;
    const key = (n: number, expires?: number): KeyRecord => ({
      id: `key_exp${n}`, workspaceId: "ws_a", apiId: "api_0001", hash: `ehash_${n}`, start: "", createdAt: T, enabled: true,
      ratelimits: [], permissions: [], roles: [], ...(expires !== undefined && { expires }),
    });
    await store.keys.insertMany([key(1, T + 3 * HOUR), key(2, T + 10), key(3), key(4, T + 30 * HOUR), key(5, T + HOUR + 5)]);
    await store.keys.markDeleted("ws_a", "key_exp5", T);
    const found = await store.keyExpiries.expiringBetween(T, T + 10 * HOUR, 10);
    expect(found).toEqual([
      { id: "key_exp2", workspaceId: "ws_a", apiId: "api_0001", expires: T + 10 },
      { id: "key_exp1", workspaceId: "ws_a", apiId: "api_0001", expires: T + 3 * HOUR },
    ]);
    expect((await store.keyExpiries.expiringBetween(T + 10, T + 3 * HOUR, 10)).map((k) => k.id)).toEqual(["key_exp1"]);
    expect((await store.keyExpiries.expiringBetween(T, T + 40 * HOUR, 1)).map((k) => k.id)).toEqual(["key_exp2"]);
  });
}
