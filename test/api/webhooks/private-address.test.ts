import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isPublicAddress } from "../../../src/domain/webhooks/address-policy.js";
import { useKeyward } from "../../support/use-keyward.js";
import { startReceiver, type Receiver } from "../../support/webhook-receiver.js";

describe("webhook delivery without KEYWARD_WEBHOOKS_ALLOW_PRIVATE", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32), webhooks: { retryScale: 0.001 } });
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it("refuses to connect to a loopback address, by IP or by a name that resolves to one, and records why", async () => {
    for (const url of [receiver.url, `http://localhost:${receiver.port}/hook`]) {
      const created = await harness.rest.v2("webhooks.createWebhook", { url, events: ["api.create"] }, harness.keyward.rootKey);
      const { webhookId } = created.body.data;
      const { messageId } = (await harness.rest.v2("webhooks.sendTest", { webhookId }, harness.keyward.rootKey)).body.data;
      await vi.waitFor(async () => {
        const [delivery] = (await harness.rest.v2("webhooks.listDeliveries", { webhookId }, harness.keyward.rootKey)).body.data;
        expect(delivery).toMatchObject({ id: messageId, status: "pending", attempts: 1, lastError: expect.stringContaining("private or reserved") });
        expect(delivery.responseCode).toBeUndefined();
      }, { timeout: 5000 });
    }
    expect(receiver.received).toEqual([]);
  });

  it("judges addresses: only global unicast passes", () => {
    const refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1", "::1", "::", "fc00::1", "fd12::1", "fe80::1", "::ffff:10.0.0.1", "224.0.0.1"];
    for (const address of refused) expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false });
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: true });
  });
});
