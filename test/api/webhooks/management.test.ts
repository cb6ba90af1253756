import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { WebhooksService } from "../../../gen/keyward/v1/webhooks_pb.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("webhooks management", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32) });
  const v2 = (op: string, body: unknown, key = harness.keyward.rootKey) => harness.rest.v2(`webhooks.${op}`, body, key);

  it("creates an endpoint, answers its secret once, and never shows it again", async () => {
    const created = await v2("createWebhook", {
      url: "https://example.com/hook", events: ["key.create", "key.credits.low"], description: "billing",
      thresholds: { credits: [{ remaining: 10 }, { percent: 20 }], expiringBeforeMs: 3_600_000 },
    });
    expect(created.status).toBe(200);
    const { webhookId, secret } = created.body.data;
    expect(webhookId).toMatch(/^wh_/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await v2("getWebhook", { webhookId });
    expect(got.body.data).toEqual({
      id: webhookId, url: "https://example.com/hook", events: ["key.create", "key.credits.low"], description: "billing",
      thresholds: { credits: [{ remaining: 10 }, { percent: 20 }], expiringBeforeMs: 3_600_000 }, enabled: true,
      createdAt: harness.clock.now(),
    });
    expect(JSON.stringify(got.body)).not.toContain(secret.slice(6));
    // Not at rest either: the stored record holds only ciphertext.
    const stored = await harness.keyward.documents.webhooks.get(harness.keyward.workspaceId, webhookId);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    const listed = await v2("listWebhooks", {});
    expect(listed.body.data.map((w: any) => w.id)).toContain(webhookId);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));
  });

  it("updates, pauses and resumes, rotates, and deletes; each change is an audit record", async () => {
    const { webhookId } = (await v2("createWebhook", { url: "http://example.com/a", events: ["api.create"] })).body.data;
    const updated = await v2("updateWebhook", { webhookId, url: "https://example.com/b", events: ["api.delete"], enabled: false });
    expect(updated.body.data).toMatchObject({ url: "https://example.com/b", events: ["api.delete"], enabled: false, disabledReason: "paused" });
    const resumed = await v2("updateWebhook", { webhookId, enabled: true });
    expect(resumed.body.data.enabled).toBe(true);
    expect(resumed.body.data.disabledReason).toBeUndefined();
    const rotated = await v2("rotateSecret", { webhookId });
    expect(rotated.body.data).toEqual({ secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: harness.clock.now() + 86_400_000 });
    expect((await v2("getWebhook", { webhookId })).body.data.previousSecretExpiresAt).toBe(harness.clock.now() + 86_400_000);
    expect((await v2("deleteWebhook", { webhookId })).status).toBe(200);
    expect((await v2("getWebhook", { webhookId })).status).toBe(404);
    const audit = await harness.rest.v2("auditLogs.list", { resourceId: webhookId }, harness.keyward.rootKey);
    expect(audit.body.error).toBeUndefined();
    expect(audit.body.data.map((r: any) => r.action)).toEqual(["webhook.create", "webhook.update", "webhook.update", "webhook.rotateSecret", "webhook.delete"]);
  });

  it("answers 400 to bad urls, unknown events and bad thresholds, and stores nothing", async () => {
    const before = (await v2("listWebhooks", {})).body.data.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ url: "ftp://example.com", events: ["key.create"] }, "body.url"],
      [{ url: "https://user:pw@example.com/", events: ["key.create"] }, "body.url"],
      [{ url: "not a url", events: ["key.create"] }, "body.url"],
      [{ url: "https://example.com", events: ["key.nope"] }, "body.events[0]"],
      [{ url: "https://example.com", events: [] }, "body.events"],
      [{ url: "https://example.com", events: ["key.create", "key.create"] }, "body.events[1]"],
      [{ url: "https://example.com", events: ["key.credits.low"], thresholds: { credits: [{ percent: 100 }] } }, "body.thresholds.credits[0].percent"],
      [{ url: "https://example.com", events: ["key.credits.low"], thresholds: { credits: [{ percent: 0 }] } }, "body.thresholds.credits[0].percent"],
      [{ url: "https://example.com", events: ["key.credits.low"], thresholds: { credits: [{}] } }, "body.thresholds.credits[0]"],
      [{ url: "https://example.com", events: ["key.create"], nope: 1 }, "body.nope"],
    ];
    for (const [body, location] of cases) {
      const answer = await v2("createWebhook", body);
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
      expect(answer.body.error.errors.map((e: any) => e.location)).toContain(location);
    }
    expect((await v2("listWebhooks", {})).body.data.length).toBe(before);
  });

  it("answers INVALID_ARGUMENT over Connect and gRPC to the same bad input", async () => {
    const transports = rpcTransports(harness.keyward.baseUrl);
    for (const transport of [transports.connect, transports.grpc]) {
      const client = rpcClient(WebhooksService, transport);
      for (const request of [{ url: "ftp://example.com", events: ["key.create"] }, { url: "https://example.com", events: ["key.nope"] }, { url: "https://example.com", events: [] }]) {
        const error = await client.createWebhook(request, bearer(harness.keyward.rootKey)).catch((e: unknown) => e);
        expect(ConnectError.from(error).code).toBe(Code.InvalidArgument);
      }
    }
  });

  it("needs the webhook permissions (403 naming them) and hides another workspace's endpoints (404)", async () => {
    const { webhookId } = (await v2("createWebhook", { url: "https://example.com/x", events: ["key.create"] })).body.data;
    const reader = await harness.seed.rootKey(["webhook.*.read_webhook"]);
    const denied = await v2("createWebhook", { url: "https://example.com", events: ["key.create"] }, reader.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.detail).toContain("webhook.*.create_webhook");
    expect((await v2("deleteWebhook", { webhookId }, reader.key)).status).toBe(403);
    expect((await v2("getWebhook", { webhookId }, reader.key)).status).toBe(200);
    const other = await harness.seed.workspace("webhooks-other");
    for (const op of ["getWebhook", "deleteWebhook", "rotateSecret", "sendTest", "listDeliveries"]) {
      expect({ op, status: (await v2(op, { webhookId }, other.rootKey.key)).status }).toEqual({ op, status: 404 });
    }
    expect((await v2("listWebhooks", {}, other.rootKey.key)).body.data).toEqual([]);
    expect((await v2("getWebhook", { webhookId })).status).toBe(200);
  });

  it("refuses to create an endpoint for an api of another workspace (404)", async () => {
    const other = await harness.seed.workspace("webhooks-api-other");
    const apiId = await harness.seed.api({ by: other.rootKey.key });
    expect((await v2("createWebhook", { url: "https://example.com", events: ["key.create"], apiId })).status).toBe(404);
  });
});
