import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);

const stored = (apiId: string) => h.keyward.documents.apis.get(h.keyward.workspaceId, apiId);

describe("api settings page in a real browser", () => {
  it("renames, sets the allow-list (a bad entry named), delete protection and key defaults, then deletes the api", { timeout: 120_000 }, async () => {
    const apiId = await h.seed.api({ name: "browser-settings" });
    await ui.signIn(h.keyward.rootKey, `/apis/${apiId}`);
    // The api's key page links to its settings.
    await ui.page.getByRole("link", { name: "Settings" }).click();
    await ui.page.getByRole("heading", { name: "Settings of browser-settings", level: 1 }).waitFor();
    const form = ui.page.getByRole("form", { name: "API settings" });
    expect(await form.getByLabel("Default byte length").inputValue()).toBe("16");

    // A bad entry is refused in words, naming it, and nothing is written.
    await form.getByLabel("Name").fill("browser-renamed");
    await form.getByLabel("IP allow-list").fill("10.0.0.0/8\nnot-an-address");
    await form.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain('ipWhitelist[1]: "not-an-address" is not an IPv4 or IPv6 address or CIDR range');
    expect((await stored(apiId))?.name).toBe("browser-settings");

    await form.getByLabel("IP allow-list").fill("10.0.0.0/8\n2001:db8::/32\n127.0.0.1");
    await form.getByLabel("Default prefix").fill("dash");
    await form.getByLabel("Default byte length").fill("32");
    await form.getByLabel(/Delete protection/).check();
    await form.getByRole("button", { name: "Save settings" }).click();
    await form.getByText("Saved.").waitFor();
    expect(await stored(apiId)).toMatchObject({
      name: "browser-renamed", ipWhitelist: ["10.0.0.0/8", "2001:db8::/32", "127.0.0.1"], deleteProtection: true, defaultPrefix: "dash", defaultBytes: 32,
    });
    await ui.page.getByRole("heading", { name: "Settings of browser-renamed", level: 1 }).waitFor();
    await screenshotBoth(ui.page, "api-settings-01-saved");

    // A reload shows what is stored; new keys take the defaults and verify from the allowed 127.0.0.1.
    await ui.page.reload();
    await form.getByLabel("IP allow-list").waitFor();
    expect(await form.getByLabel("IP allow-list").inputValue()).toBe("10.0.0.0/8\n2001:db8::/32\n127.0.0.1");
    expect(await form.getByLabel(/Delete protection/).isChecked()).toBe(true);
    const { key } = await h.seed.key(apiId);
    expect(key.startsWith("dash_")).toBe(true);
    expect((await h.rest.v2("keys.verifyKey", { key }, h.keyward.rootKey)).body.data.code).toBe("VALID");

    // Delete protection holds: the refusal is shown, the api stays.
    const danger = ui.page.getByRole("region", { name: "Delete this api" });
    await danger.getByRole("button", { name: "Delete API" }).click();
    await danger.getByRole("button", { name: "Delete API now" }).click();
    await expect.poll(() => danger.getByRole("alert").textContent()).toContain("protected from deletion");
    expect(await stored(apiId)).toBeDefined();

    // Turned off (emptying the allow-list and prefix clears them), then deleted: back on the apis ui.page.
    await form.getByLabel(/Delete protection/).uncheck();
    await form.getByLabel("IP allow-list").fill("");
    await form.getByLabel("Default prefix").fill("");
    await form.getByRole("button", { name: "Save settings" }).click();
    await form.getByText("Saved.").waitFor();
    const cleared = await stored(apiId);
    expect([cleared?.deleteProtection, cleared?.ipWhitelist, cleared?.defaultPrefix, cleared?.defaultBytes]).toEqual([false, undefined, undefined, 32]);
    await danger.getByRole("button", { name: "Delete API" }).click();
    await danger.getByRole("button", { name: "Delete API now" }).click();
    await ui.page.getByRole("heading", { name: "APIs", level: 1 }).waitFor();
    expect(await stored(apiId)).toBeUndefined();
  });

  it("a root key without update_api sees the settings read only, with the reason", { timeout: 60_000 }, async () => {
    const apiId = await h.seed.api({ name: "read-only-settings" });
    await h.rest.v2("apis.updateApi", { apiId, ipWhitelist: ["192.0.2.0/24"] }, h.keyward.rootKey);
    const { key } = await h.seed.rootKey(["api.*.read_api", "api.*.read_key"]);
    await ui.page.context().clearCookies();
    await ui.signIn(key, `/apis/${apiId}/settings`);
    const form = ui.page.getByRole("form", { name: "API settings" });
    await form.getByLabel("IP allow-list").waitFor();
    expect(await form.getByLabel("IP allow-list").inputValue()).toBe("192.0.2.0/24");
    await form.getByText("Your root key lacks api.*.update_api").waitFor();
    expect(await form.getByLabel("Name").isDisabled()).toBe(true);
    expect(await form.getByRole("button", { name: "Save settings" }).isDisabled()).toBe(true);
    expect(await ui.page.getByRole("button", { name: "Delete API" }).getAttribute("title")).toBe("Your root key lacks api.*.delete_api");
    await screenshotBoth(ui.page, "api-settings-02-read-only");
  });
});
