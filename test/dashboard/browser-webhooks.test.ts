import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

// The receiver listens on 127.0.0.1, so private targets are allowed; retries are scaled down as in the delivery tests.
const h = useKeyward({ encryptionKey: randomBytes(32), webhooks: { allowPrivate: true, retryScale: 0.001 } });
const ui = useDashboardPage(() => h.keyward.baseUrl);
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const v2 = (op: string, body: unknown) => h.rest.v2(op, body, h.keyward.rootKey);
const listed = async () => (await v2("webhooks.listWebhooks", {})).body.data as { id: string; url: string }[];

describe("webhooks pages in a real browser", () => {
  it("creates a webhook (bad input refused in words), shows its secret once, tests, redelivers, pauses, rotates and deletes it", { timeout: 120_000 }, async () => {
    const apiId = await h.seed.api({ name: "billing" });
    await ui.signIn(h.keyward.rootKey, "/webhooks");
    await ui.page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    expect(await ui.page.getByRole("link", { name: "Webhooks" }).getAttribute("aria-current")).toBe("page");
    await ui.page.getByText("No webhooks yet.").waitFor();

    const form = ui.page.getByRole("form", { name: "Create a webhook" });
    await form.getByLabel("Endpoint URL").fill("ftp://example.com/hook");
    await form.getByLabel("Only events of API").selectOption(apiId);
    await form.getByRole("checkbox", { name: "key.credits.low", exact: true }).check();
    await form.getByRole("checkbox", { name: "key.create", exact: true }).check();
    // A credit level that is neither a number nor a percentage is named before anything is sent.
    await form.getByLabel("Credit levels for key.credits.low").fill("100, lots");
    await form.getByRole("button", { name: "Create webhook" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toBe("Credit level “lots” is neither a number of credits (100) nor a percentage (10%).");
    // The server refuses the scheme, in words; nothing is stored.
    await form.getByLabel("Credit levels for key.credits.low").fill("100, 10%");
    await form.getByRole("button", { name: "Create webhook" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("only http and https are allowed");
    expect(await listed()).toEqual([]);

    await form.getByLabel("Endpoint URL").fill(receiver.url);
    await form.getByLabel("Description").fill("billing alerts");
    await form.getByRole("checkbox", { name: "key.expiring", exact: true }).check();
    await form.getByLabel("Hours before expiry for key.expiring").fill("48");
    await screenshotBoth(ui.page, "webhooks-00-create-form");
    await form.getByRole("button", { name: "Create webhook" }).click();
    const created = ui.page.getByRole("region", { name: "Webhook created" });
    await created.getByText("You will not see this secret again").waitFor();
    const secret = await created.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.state.secrets.push(secret);
    const [hook] = await listed();
    expect((await v2("webhooks.getWebhook", { webhookId: hook.id })).body.data).toMatchObject({
      url: receiver.url, events: ["key.credits.low", "key.create", "key.expiring"], apiId, description: "billing alerts", enabled: true,
      thresholds: { credits: [{ remaining: 100 }, { percent: 10 }], expiringBeforeMs: 172_800_000 },
    });
    // The list below shows it too, active, once it has reloaded after the create (it may lag the secret's panel).
    const row = ui.page.getByRole("row").filter({ hasText: hook.id });
    await row.getByRole("cell", { name: "active" }).waitFor();
    expect(await row.getByRole("cell", { name: "active" }).count()).toBe(1);
    await screenshotBoth(ui.page, "webhooks-01-created");

    // Done hides the secret for good: a reload of the list does not show it either.
    await created.getByRole("button", { name: "Done" }).click();
    await ui.page.reload();
    await row.waitFor();
    expect(await ui.page.content()).not.toContain(secret);

    // The endpoint page: a test message is delivered to the real receiver, signed with the secret, and listed.
    await row.getByRole("link", { name: receiver.url }).click();
    await ui.page.getByRole("heading", { name: `Webhook ${receiver.url}`, level: 1 }).waitFor();
    await ui.page.getByText("No messages yet: send a test.").waitFor();
    const facts = ui.page.getByRole("region", { name: "Endpoint" });
    expect(await facts.getByText("100 credits, 10%").count()).toBe(1);
    expect(await facts.getByText("48 h before").count()).toBe(1);
    await ui.page.getByRole("button", { name: "Send test" }).click();
    const delivery = ui.page.getByRole("row").filter({ hasText: "webhook.test" });
    await delivery.getByRole("cell", { name: "delivered" }).waitFor({ timeout: 15_000 });
    expect(await delivery.getByRole("cell", { name: "200" }).count()).toBe(1);
    expect(await delivery.getByRole("cell", { name: /^\d+ ms$/ }).count()).toBe(1);
    const tests = receiver.distinct("webhook.test");
    expect(tests.map((r) => [r.data, r.verifiedBy])).toEqual([[{ webhookId: hook.id }, [0]]]);
    expect(await delivery.textContent()).toContain(tests[0].id);
    await screenshotBoth(ui.page, "webhooks-02-delivered");

    // Redeliver sends the same message (same webhook-id) once more.
    await delivery.getByRole("button", { name: "Redeliver" }).click();
    await ui.page.getByText(`Message ${tests[0].id} is queued to be sent again now.`).waitFor();
    await expect.poll(() => receiver.received.filter((r) => r.id === tests[0].id).length, { timeout: 10_000 }).toBe(2);

    // A failing receiver: the message stays pending with the answer's code, the error and its next attempt; the list
    // refreshes itself and shows it delivered once the receiver answers 2xx and the retry is due.
    receiver.state.respond = () => 503;
    await ui.page.getByRole("button", { name: "Send test" }).click();
    const retrying = ui.page.getByRole("row").filter({ hasText: "pending" });
    await retrying.getByRole("cell", { name: "503 HTTP 503" }).waitFor({ timeout: 15_000 });
    expect(await retrying.getByRole("cell", { name: "2030-01-01 00:00:00 UTC", exact: true }).count()).toBe(1); // next attempt, scaled to ms
    await screenshotBoth(ui.page, "webhooks-02b-retrying");
    receiver.state.respond = () => 200;
    h.clock.advance(10);
    await ui.page.getByRole("row").filter({ hasText: "webhook.test" }).filter({ hasText: "pending" }).waitFor({ state: "detached", timeout: 15_000 });
    expect(receiver.distinct("webhook.test").length).toBe(2);

    // Pause: the state says so, here and in the store; Resume returns it.
    await ui.page.getByRole("button", { name: "Pause" }).click();
    await ui.page.getByText("Paused: messages queue until you resume.").waitFor();
    await ui.page.getByRole("region", { name: "Endpoint" }).getByText("paused", { exact: true }).waitFor();
    expect((await v2("webhooks.getWebhook", { webhookId: hook.id })).body.data).toMatchObject({ enabled: false, disabledReason: "paused" });
    await screenshotBoth(ui.page, "webhooks-03-paused");
    await ui.page.getByRole("button", { name: "Resume" }).click();
    await ui.page.getByRole("region", { name: "Endpoint" }).getByText("active", { exact: true }).waitFor();
    expect((await v2("webhooks.getWebhook", { webhookId: hook.id })).body.data.enabled).toBe(true);

    // Rotate: asked once more, then a new secret shown once; the old one still signs for a day.
    await ui.page.getByRole("button", { name: "Rotate secret" }).click();
    await ui.page.getByRole("button", { name: "Rotate now" }).click();
    const rotated = await ui.page.getByRole("textbox", { name: "New signing secret" }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await ui.page.getByText("The previous secret keeps signing beside it until 2030-01-02 00:00:00 UTC.").waitFor();
    await screenshotBoth(ui.page, "webhooks-04-rotated");
    await ui.page.getByRole("button", { name: "Done" }).click();
    expect(await ui.page.content()).not.toContain(rotated);

    // Delete, by keyboard: the confirmation takes the focus, Enter confirms; then back on the list, empty again.
    await ui.page.getByRole("button", { name: "Delete webhook" }).focus();
    await ui.page.keyboard.press("Enter");
    await expect.poll(() => ui.page.evaluate(() => document.activeElement?.textContent)).toBe("Delete webhook now");
    await ui.page.keyboard.press("Enter");
    await ui.page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    await ui.page.getByText("No webhooks yet.").waitFor();
    expect((await v2("webhooks.getWebhook", { webhookId: hook.id })).status).toBe(404);

    // An endpoint that does not exist (or is another workspace's) is named as not found.
    await ui.page.goto(ui.url(`/webhooks/${hook.id}`));
    await expect.poll(() => ui.page.getByRole("alert").textContent()).toContain("Not found");
  });

  it("a root key that may only read webhooks sees them, with every other control disabled and each missing permission named once", { timeout: 60_000 }, async () => {
    const { webhookId } = (await v2("webhooks.createWebhook", { url: receiver.url, events: ["api.create"] })).body.data;
    await v2("webhooks.sendTest", { webhookId });
    const { key } = await h.seed.rootKey(["webhook.*.read_webhook"]);
    await ui.page.context().clearCookies();
    await ui.page.goto("about:blank"); // a fresh load, whatever page the previous test left open
    await ui.signIn(key, "/webhooks");
    const create = ui.page.getByRole("region", { name: "Create a webhook" });
    await create.getByText("Your root key lacks webhook.*.create_webhook").waitFor();
    expect(await ui.page.getByText("webhook.*.create_webhook").count()).toBe(1);
    expect(await create.getByRole("button", { name: "Create webhook" }).isDisabled()).toBe(true);
    expect(await create.getByRole("button", { name: "Create webhook" }).getAttribute("title")).toBe("Your root key lacks webhook.*.create_webhook");
    expect(await ui.page.getByLabel("Endpoint URL").count()).toBe(0);
    await screenshotBoth(ui.page, "webhooks-05-read-only-list");
    await ui.page.getByRole("link", { name: receiver.url }).click();

    await ui.page.getByRole("heading", { name: `Webhook ${receiver.url}`, level: 1 }).waitFor();
    await ui.page.getByRole("row").filter({ hasText: "webhook.test" }).waitFor();
    for (const name of ["Pause", "Send test", "Rotate secret", "Redeliver"]) {
      const button = ui.page.getByRole("button", { name });
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute("title")).toBe("Your root key lacks webhook.*.update_webhook");
    }
    expect(await ui.page.getByRole("button", { name: "Delete webhook" }).getAttribute("title")).toBe("Your root key lacks webhook.*.delete_webhook");
    expect(await ui.page.getByText("webhook.*.update_webhook").count()).toBe(1);
    expect(await ui.page.getByText("webhook.*.delete_webhook").count()).toBe(1);
    await screenshotBoth(ui.page, "webhooks-06-read-only-endpoint");
    expect((await v2("webhooks.getWebhook", { webhookId })).body.data.enabled).toBe(true);
  });
  it("a root key that may create webhooks but not read apis types the api id; another workspace's api is refused in words", { timeout: 60_000 }, async () => {
    const apiId = await h.seed.api({ name: "typed-filter" });
    const other = await h.seed.workspace("elsewhere");
    const otherApi = await h.seed.api({ name: "theirs", by: other.rootKey.key });
    const { key } = await h.seed.rootKey(["webhook.*.create_webhook", "webhook.*.read_webhook"]);
    await ui.page.context().clearCookies();
    await ui.page.goto("about:blank");
    await ui.signIn(key, "/webhooks");
    const form = ui.page.getByRole("form", { name: "Create a webhook" });
    const before = (await listed()).length;
    await form.getByLabel("Endpoint URL").fill(receiver.url);
    await form.getByRole("checkbox", { name: "key.credits.exhausted", exact: true }).check();
    await form.getByRole("textbox", { name: "Only events of API" }).fill(otherApi);
    await form.getByRole("button", { name: "Create webhook" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toMatch(/^Not found: /);
    expect((await listed()).length).toBe(before);
    await form.getByRole("textbox", { name: "Only events of API" }).fill(apiId);
    await form.getByRole("button", { name: "Create webhook" }).click();
    await ui.page.getByRole("region", { name: "Webhook created" }).waitFor();
    expect((await listed()).filter((w) => (w as { apiId?: string }).apiId === apiId).length).toBe(1);
  });
});
