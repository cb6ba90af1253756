import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);
const verify = async (key: string) => (await h.rest.v2("keys.verifyKey", { key }, h.keyward.rootKey)).body.data;
const secretShown = () => ui.page.locator("#one-time-secret").inputValue();

describe("keys in a real browser: search, create with every field, edit, reroll", () => {
  it("finds a key on the fourth page by searching the server", { timeout: 120_000 }, async () => {
    const apiId = await h.seed.api({ name: "many-keys" });
    for (let i = 0; i < 60; i++) await h.seed.key(apiId, { name: `filler-${i}` });
    h.clock.advance(1000); // ids sort by time: the needle is the last key, on the fourth page of 20
    const { keyId } = await h.seed.key(apiId, { name: "the-needle" });
    await ui.signIn(h.keyward.rootKey, `/apis/${apiId}`);
    await ui.page.getByRole("heading", { name: "Keys (61)" }).waitFor();
    expect(await ui.page.getByRole("link", { name: "the-needle" }).count()).toBe(0);
    // Paging shows where it is: the fourth page.
    for (let page = 2; page <= 4; page++) {
      await ui.page.getByRole("button", { name: "Next page" }).click();
      await ui.page.getByText(`Page ${page}`, { exact: true }).waitFor();
    }
    await ui.page.getByRole("link", { name: "the-needle" }).waitFor();
    await ui.page.getByRole("button", { name: "First page" }).click();
    await ui.page.getByText("Page 1", { exact: true }).waitFor();
    await expect.poll(() => ui.page.getByRole("link", { name: "the-needle" }).count()).toBe(0);
    const search = ui.page.getByRole("search", { name: "Search keys" });
    await search.getByRole("searchbox", { name: "Search" }).fill("NEEDLE");
    await search.getByRole("searchbox", { name: "Search" }).press("Enter");
    await ui.page.getByRole("heading", { name: "Keys (1 found)" }).waitFor();
    await ui.page.getByRole("link", { name: "the-needle" }).waitFor();
    expect(await ui.page.getByRole("row").count()).toBe(2);
    expect(await ui.page.getByRole("row").nth(1).innerText()).toContain(keyId);
    await search.getByRole("searchbox", { name: "Search" }).fill("nothing-like-it");
    await search.getByRole("button", { name: "Search" }).click();
    await ui.page.getByRole("cell", { name: "No key matches “nothing-like-it”." }).waitFor();
    await screenshotBoth(ui.page, "keys-01-search");
    // The APIs list counts each API's keys.
    await ui.page.getByRole("link", { name: "APIs and keys" }).click();
    await expect.poll(async () => (await ui.page.getByRole("row", { name: /many-keys/ }).getByRole("cell").nth(2).innerText())).toBe("61");
  });

  it("creates a key with two rate limits, a role and an expiry; edits each and the verification answer changes", { timeout: 120_000 }, async () => {
    const apiId = await h.seed.api({ name: "edited-keys" });
    expect((await h.rest.v2("permissions.createPermission", { name: "documents.read", slug: "documents.read" }, h.keyward.rootKey)).status).toBe(200);
    expect((await h.rest.v2("permissions.createRole", { name: "reader" }, h.keyward.rootKey)).status).toBe(200);
    await ui.page.goto(ui.url(`/apis/${apiId}`)); // signed in by the test before
    await ui.page.reload();
    const form = ui.page.getByRole("form", { name: "Create a key" });
    await form.getByLabel("Name", { exact: true }).fill("full-key");
    await form.getByLabel("Expires (UTC)").fill("2030-06-01 00:00");
    await form.getByLabel("Roles").fill("reader");
    await form.getByLabel("Metadata (JSON)").fill("{\"plan\": \"pro\"}");
    // A mistake is named in words before anything is sent.
    await form.getByRole("button", { name: "Add a rate limit" }).click();
    await form.getByRole("button", { name: "Create key" }).click();
    await form.getByRole("alert").filter({ hasText: "Rate limit 1: a name is required." }).waitFor();
    const first = form.getByRole("group", { name: "Rate limit 1" });
    await first.getByLabel("Limit name").fill("burst");
    await first.getByLabel("Limit", { exact: true }).fill("1");
    await first.getByLabel("Window").fill("10 s");
    await form.getByRole("button", { name: "Add a rate limit" }).click();
    const second = form.getByRole("group", { name: "Rate limit 2" });
    await second.getByLabel("Limit name").fill("daily");
    await second.getByLabel("Limit", { exact: true }).fill("100");
    await second.getByLabel("Window").fill("1 d");
    await screenshotBoth(ui.page, "keys-02-create-form");
    await form.getByRole("button", { name: "Create key" }).click();
    const key = await (async () => { await ui.page.locator("#one-time-secret").waitFor(); return secretShown(); })();
    const created = await verify(key);
    expect(created).toMatchObject({ valid: true, code: "VALID", name: "full-key", expires: Date.UTC(2030, 5, 1), roles: ["reader"], meta: { plan: "pro" } });
    expect(created.ratelimits.map((r: any) => [r.name, r.limit, r.duration]).sort()).toEqual([["burst", 1, 10_000], ["daily", 100, 86_400_000]]);
    // The burst limit of 1: the second verification is refused.
    expect((await verify(key)).code).toBe("RATE_LIMITED");
    await ui.page.getByRole("button", { name: "Done" }).click();

    // Edit each: burst 1 -> 5 lets it through again; then disabled; then expired; then back.
    await ui.page.getByRole("link", { name: "full-key" }).click();
    await ui.page.getByRole("heading", { name: "Key full-key", level: 1 }).waitFor();
    const edit = ui.page.getByRole("form", { name: "Edit the key" });
    expect(await edit.getByLabel("Expires (UTC)").inputValue()).toBe("2030-06-01 00:00:00");
    expect(await edit.getByRole("group", { name: "Rate limit 1" }).getByLabel("Window").inputValue()).toMatch(/^(10 s|1 d)$/);
    const burst = (await edit.getByRole("group", { name: "Rate limit 1" }).getByLabel("Limit name").inputValue()) === "burst" ? 1 : 2;
    await edit.getByRole("group", { name: `Rate limit ${burst}` }).getByLabel("Limit", { exact: true }).fill("5");
    await edit.getByLabel("Name", { exact: true }).fill("renamed-key");
    await edit.getByLabel("Roles").fill("");
    await edit.getByLabel("Permissions").fill("documents.read");
    await edit.getByRole("button", { name: "Save key" }).click();
    await ui.page.getByRole("heading", { name: "Key renamed-key", level: 1 }).waitFor();
    const afterEdit = await verify(key);
    expect(afterEdit).toMatchObject({ code: "VALID", name: "renamed-key", roles: [], permissions: ["documents.read"] });
    expect(afterEdit.ratelimits.find((r: any) => r.name === "burst").limit).toBe(5);

    await edit.getByLabel("Enabled").uncheck();
    await edit.getByRole("button", { name: "Save key" }).click();
    await ui.page.getByText("disabled", { exact: true }).first().waitFor();
    expect((await verify(key)).code).toBe("DISABLED");
    await edit.getByLabel("Enabled").check();
    await edit.getByLabel("Expires (UTC)").fill("2029-12-31 23:00");
    await edit.getByRole("button", { name: "Save key" }).click();
    await expect.poll(async () => (await verify(key)).code).toBe("EXPIRED");
    // A bad time is refused in words; the key is unchanged.
    await edit.getByLabel("Expires (UTC)").fill("next tuesday");
    await edit.getByRole("button", { name: "Save key" }).click();
    await edit.getByRole("alert").filter({ hasText: "Expires: “next tuesday” is not a time" }).waitFor();
    await edit.getByLabel("Expires (UTC)").fill("");
    await edit.getByRole("button", { name: "Save key" }).click();
    await expect.poll(async () => (await verify(key)).code).toBe("VALID");
    expect((await verify(key)).expires).toBeUndefined();
    await screenshotBoth(ui.page, "keys-03-edit");

    // Reroll with a grace period: both verify until it ends; "0 s" would revoke at once.
    const reroll = ui.page.getByRole("form", { name: "Reroll the key" });
    await reroll.getByLabel("Grace period for the old key").fill("soon");
    await reroll.getByRole("button", { name: "Reroll key" }).click();
    await reroll.getByRole("alert").filter({ hasText: "Grace period: “soon” is not a duration" }).waitFor();
    await reroll.getByLabel("Grace period for the old key").fill("1 h");
    await reroll.getByRole("button", { name: "Reroll key" }).click();
    await ui.page.locator("#one-time-secret").waitFor();
    const rerolled = await secretShown();
    expect(rerolled).not.toBe(key);
    expect((await verify(rerolled)).code).toBe("VALID");
    const old = await verify(key);
    expect([old.code, old.expires]).toEqual(["VALID", h.clock.now() + 3_600_000]);
    h.clock.advance(3_600_001);
    expect((await verify(key)).code).toBe("EXPIRED");
    expect((await verify(rerolled)).code).toBe("VALID");
    await screenshotBoth(ui.page, "keys-04-rerolled");
  });

  it("a root key that may only read keys sees the key forms disabled, the missing permission named", { timeout: 60_000 }, async () => {
    const apiId = await h.seed.api({ name: "read-only-keys" });
    const { keyId } = await h.seed.key(apiId, { name: "look-only" });
    const { key } = await h.seed.rootKey(["api.*.read_api", "api.*.read_key"], { name: "key-reader" });
    await ui.page.context().clearCookies();
    await ui.page.goto("about:blank");
    await ui.signIn(key, `/keys/${keyId}`);
    await ui.page.getByRole("heading", { name: "Key look-only", level: 1 }).waitFor();
    await ui.page.getByText("Your root key lacks api.*.update_key: the key cannot be changed here.").waitFor();
    const save = ui.page.getByRole("button", { name: "Save key" });
    expect([await save.isDisabled(), await save.getAttribute("title")]).toEqual([true, "Your root key lacks api.*.update_key"]);
    const reroll = ui.page.getByRole("button", { name: "Reroll key" });
    expect([await reroll.isDisabled(), await reroll.getAttribute("title")]).toEqual([true, "Your root key lacks api.*.create_key"]);
    await screenshotBoth(ui.page, "keys-05-restricted");
    await ui.page.getByRole("link", { name: apiId }).click();
    const create = ui.page.getByRole("button", { name: "Create key" });
    await create.waitFor();
    expect([await create.isDisabled(), await create.getAttribute("title")]).toEqual([true, "Your root key lacks api.*.create_key"]);
  });
});
