import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { openBrowser, screenshotBoth } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
let browser: Awaited<ReturnType<typeof openBrowser>>;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await openBrowser();
  context = browser.context;
  page = context.pages()[0] ?? (await context.newPage());
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const url = (hash = "") => `${h.keyward.baseUrl}/dashboard${hash ? `#${hash}` : ""}`;

async function sessionCookie(): Promise<string> {
  const cookie = (await context.cookies(h.keyward.baseUrl + "/dashboard")).find((c) => c.name === "kw_dashboard_session");
  return cookie?.value ?? "";
}

describe("dashboard in a real browser", () => {
  it("signs in, manages root keys, apis and keys, and signs out", { timeout: 120_000 }, async () => {
    await page.goto(url());
    // The first request builds the bundle (seconds on a busy machine): wait like a locator, not a 1 s poll.
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await screenshotBoth(page, "01-sign-in");

    // A wrong key is refused in words and opens nothing.
    await page.getByLabel("Root key").fill("kw_not_a_real_key_000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("unknown or revoked");

    // By keyboard: type the key, press Enter.
    await page.getByLabel("Root key").fill(h.keyward.rootKey);
    await page.getByLabel("Root key").press("Enter");
    await page.getByRole("heading", { name: "Root keys", level: 1 }).waitFor();

    // The session lives in an HttpOnly cookie only: nothing readable by scripts, nothing in web storage.
    const stored = await page.evaluate(() => ({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length }));
    expect(stored).toEqual({ cookie: "", local: 0, session: 0 });
    const cookie = (await context.cookies(h.keyward.baseUrl + "/dashboard")).find((c) => c.name === "kw_dashboard_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    expect(await page.content()).not.toContain(h.keyward.rootKey);
    await page.getByRole("cell", { name: /this session/ }).waitFor();
    await screenshotBoth(page, "02-root-keys");

    // Create a root key with two permissions; its plaintext is shown once.
    const form = page.getByRole("form", { name: "Create a root key" });
    await form.getByLabel("Name", { exact: true }).fill("ci-two-permissions");
    const apiGroup = form.getByRole("group", { name: "api" });
    await apiGroup.getByLabel("create_api", { exact: true }).check();
    await apiGroup.getByLabel("read_api", { exact: true }).check();
    await expect.poll(() => form.textContent()).toContain("2 permissions selected: api.*.create_api, api.*.read_api");
    await form.getByRole("button", { name: "Create root key" }).click();
    const secret = page.getByLabel("New root key", { exact: true }).getByRole("textbox");
    await secret.waitFor();
    const plaintext = await secret.inputValue();
    expect(plaintext).toMatch(/^kw_/);
    await screenshotBoth(page, "03-root-key-created");

    const created = await h.rest.v2("apis.createApi", { name: "made-by-new-key" }, plaintext);
    expect(created.status).toBe(200);
    const listed = await h.rest.v2("rootKeys.listRootKeys", {}, h.keyward.rootKey);
    const mine = listed.body.data.find((k: { name?: string }) => k.name === "ci-two-permissions");
    expect(mine.permissions.sort()).toEqual(["api.*.create_api", "api.*.read_api"]);

    // Done hides the secret for good; revoke the key from its row.
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.content()).not.toContain(plaintext);
    const row = page.getByRole("row", { name: /ci-two-permissions/ });
    await row.getByRole("button", { name: "Revoke" }).focus();
    await page.keyboard.press("Enter");
    // The confirmation takes the focus, so Enter again confirms.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Revoke now");
    await page.keyboard.press("Enter");
    await expect.poll(() => row.count()).toBe(0);
    expect((await h.rest.v2("apis.createApi", { name: "after-revoke" }, plaintext)).status).toBe(401);

    // An api and a key. The list already holds the api the new root key made.
    await page.getByRole("link", { name: "APIs and keys" }).click();
    await page.getByRole("heading", { name: "APIs", level: 1 }).waitFor();
    await page.getByRole("row", { name: /made-by-new-key/ }).waitFor();
    const apiForm = page.getByRole("form", { name: "Create an api" });
    await apiForm.getByLabel("Name", { exact: true }).fill("shop-api");
    await apiForm.getByRole("button", { name: "Create API" }).click();
    await page.getByRole("heading", { name: "API shop-api" }).waitFor();
    const apiId = decodeURIComponent(new URL(page.url()).hash.split("/")[2]);
    expect(apiId).toMatch(/^api_/);

    const keyForm = page.getByRole("form", { name: "Create a key" });
    await keyForm.getByLabel("Name", { exact: true }).fill("checkout");
    await keyForm.getByLabel("Credits", { exact: true }).fill("10");
    await keyForm.getByRole("button", { name: "Create key" }).click();
    const keySecret = page.getByLabel("New key", { exact: true }).getByRole("textbox");
    await keySecret.waitFor();
    const key = await keySecret.inputValue();
    await page.getByRole("button", { name: "Done" }).click();
    const keyRow = page.getByRole("row", { name: /checkout/ });
    await keyRow.getByText("enabled").waitFor();
    await screenshotBoth(page, "05-api-keys");
    const keyId = ((await keyRow.getByRole("link").getAttribute("href")) ?? "").split("/").pop() as string;

    const enabledOf = async () => (await h.rest.v2("keys.getKey", { keyId }, h.keyward.rootKey)).body.data.enabled;
    await keyRow.getByRole("button", { name: "Disable" }).click();
    await keyRow.getByText("disabled").waitFor();
    expect(await enabledOf()).toBe(false);
    expect((await h.rest.v2("keys.verifyKey", { key }, h.keyward.rootKey)).body.data.code).toBe("DISABLED");
    await keyRow.getByRole("button", { name: "Enable" }).click();
    await keyRow.getByText("enabled").waitFor();
    expect(await enabledOf()).toBe(true);

    // The key's page: set its credits.
    await keyRow.getByRole("link").click();
    await page.getByRole("heading", { name: "Key checkout" }).waitFor();
    await page.getByRole("form", { name: "Set credits" }).getByLabel("Set credits").fill("42");
    await page.getByRole("form", { name: "Set credits" }).getByRole("button", { name: "Set credits" }).click();
    await page.getByRole("definition").filter({ hasText: /^42$/ }).waitFor();
    expect((await h.rest.v2("keys.getKey", { keyId }, h.keyward.rootKey)).body.data.credits.remaining).toBe(42);
    await screenshotBoth(page, "06-key");

    // The apis list: both apis, searchable by name; a row opens the api's keys.
    await page.getByRole("link", { name: "APIs and keys" }).click();
    await page.getByRole("row", { name: /shop-api/ }).waitFor();
    expect(await page.getByRole("row", { name: /made-by-new-key/ }).count()).toBe(1);
    expect(await page.getByRole("row", { name: apiId }).getByRole("link", { name: "shop-api" }).getAttribute("href")).toBe(`#/apis/${apiId}`);
    await screenshotBoth(page, "04-apis");
    const apiSearch = page.getByRole("search", { name: "Search APIs" });
    await apiSearch.getByRole("searchbox", { name: "Search" }).fill("SHOP");
    await apiSearch.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.getByRole("row", { name: /made-by-new-key/ }).count()).toBe(0);
    expect(await page.getByRole("row", { name: /shop-api/ }).count()).toBe(1);
    await screenshotBoth(page, "04-apis-search");
    await apiSearch.getByRole("searchbox", { name: "Search" }).fill("nothing-like-this");
    await apiSearch.getByRole("searchbox", { name: "Search" }).press("Enter");
    await page.getByRole("cell", { name: "No API name contains “nothing-like-this”." }).waitFor();
    await apiSearch.getByRole("searchbox", { name: "Search" }).fill("");
    await apiSearch.getByRole("button", { name: "Search" }).click();
    await page.getByRole("row", { name: /made-by-new-key/ }).waitFor();
    await page.getByRole("link", { name: "shop-api" }).click();
    await page.getByRole("heading", { name: "API shop-api" }).waitFor();
    await page.getByRole("row", { name: /checkout/ }).waitFor();

    // Identities: create one, find it by search.
    await page.getByRole("link", { name: "Identities" }).click();
    await page.getByRole("heading", { name: "Identities", level: 1 }).waitFor();
    await page.getByRole("form", { name: "Create an identity" }).getByLabel("External id").fill("user_42");
    await page.getByRole("button", { name: "Create identity" }).click();
    await page.getByRole("row", { name: /user_42/ }).waitFor();
    const identities = await h.rest.v2("identities.listIdentities", {}, h.keyward.rootKey);
    expect(identities.body.data.map((i: { externalId: string }) => i.externalId)).toEqual(["user_42"]);
    await page.getByRole("searchbox", { name: "Search" }).fill("nobody");
    await page.getByRole("searchbox", { name: "Search" }).press("Enter");
    await page.getByRole("cell", { name: "No identities." }).waitFor();
    await page.getByRole("searchbox", { name: "Search" }).fill("42");
    await page.getByRole("searchbox", { name: "Search" }).press("Enter");
    await page.getByRole("row", { name: /user_42/ }).waitFor();
    await screenshotBoth(page, "07-identities");

    // Rate limits: a namespace exists once used; an unknown one opened by name is named as such. Once used it is
    // listed; a click opens it. Set an override, then delete it.
    await page.getByRole("link", { name: "Rate limits" }).click();
    await page.getByRole("cell", { name: "No namespaces yet: a limit call creates one." }).waitFor();
    await page.getByLabel("Namespace", { exact: true }).fill("email.outbound");
    await page.getByRole("button", { name: "Open namespace" }).click();
    await page.getByRole("alert").filter({ hasText: "Not found: The namespace email.outbound does not exist." }).waitFor();
    for (const namespace of ["email.outbound", "sms.outbound"]) {
      const used = await h.rest.v2("ratelimit.limit", { namespace, identifier: "user_1", limit: 10, duration: 60000 }, h.keyward.rootKey);
      expect(used.status).toBe(200);
    }
    // Search runs the listing again: both namespaces now, then only the one searched for.
    const namespaceSearch = page.getByRole("search", { name: "Search namespaces" });
    await namespaceSearch.getByRole("button", { name: "Search" }).click();
    await page.getByRole("row", { name: /sms\.outbound/ }).waitFor();
    await namespaceSearch.getByRole("searchbox", { name: "Search" }).fill("EMAIL");
    await namespaceSearch.getByRole("searchbox", { name: "Search" }).press("Enter");
    await expect.poll(() => page.getByRole("row", { name: /sms\.outbound/ }).count()).toBe(0);
    await page.getByRole("row", { name: /email\.outbound/ }).getByRole("button", { name: "email.outbound" }).click();
    await page.getByRole("heading", { name: "Namespace “email.outbound”" }).waitFor();
    const override = page.getByRole("form", { name: "Set an override" });
    await override.getByLabel("Identifier").fill("user_*");
    await override.getByLabel("Limit").fill("5");
    await override.getByRole("button", { name: "Set override" }).click();
    const overrideRow = page.getByRole("row", { name: /user_\*/ });
    await overrideRow.waitFor();
    const storedOverride = await h.rest.v2("ratelimit.getOverride", { namespace: "email.outbound", identifier: "user_*" }, h.keyward.rootKey);
    expect(storedOverride.body.data).toMatchObject({ identifier: "user_*", limit: 5, duration: 60000 });
    await screenshotBoth(page, "08-ratelimits");
    await overrideRow.getByRole("button", { name: "Delete" }).click();
    await overrideRow.getByRole("button", { name: "Delete override" }).click();
    await page.getByRole("cell", { name: "No overrides." }).waitFor();

    // Sign out: the cookie the browser had is refused from then on.
    const before = await sessionCookie();
    expect(before).not.toBe("");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    const after = await h.rest.raw("/dashboard/api/session", { headers: { cookie: `kw_dashboard_session=${before}` } });
    expect(after.status).toBe(401);
    expect(await sessionCookie()).toBe("");
  });

  it("disables what the session's root key may not do", { timeout: 60_000 }, async () => {
    const { key } = await h.seed.rootKey(["identity.*.read_identity"], { name: "read-identities-only" });
    await page.goto(url("/root-keys"));
    await page.getByLabel("Root key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Root keys", level: 1 }).waitFor();
    const create = page.getByRole("button", { name: "Create root key" });
    expect(await create.isDisabled()).toBe(true);
    expect(await create.getAttribute("title")).toBe("Your root key lacks rootkey.*.create_root_key");
    // The create form is off as a whole, and says why once, in words.
    await page.getByText("Your root key lacks rootkey.*.create_root_key: it cannot create root keys.").waitFor();
    expect(await page.getByRole("checkbox", { disabled: false }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Create a root key" }).getByLabel("Name", { exact: true }).isDisabled()).toBe(true);
    // The list is not asked for: the page says why once, and shows no refusal besides.
    await page.getByText("Your root key lacks rootkey.*.read_root_key: the list is not available.").waitFor();
    expect(await page.getByText("rootkey.*.read_root_key").count()).toBe(1);
    expect(await page.getByText("rootkey.*.create_root_key").count()).toBe(1);
    expect(await page.getByRole("alert").count()).toBe(0);
    await screenshotBoth(page, "11-restricted-root-keys");

    await page.getByRole("link", { name: "Identities" }).click();
    await page.getByRole("heading", { name: "Identities", level: 1 }).waitFor();
    expect(await page.getByRole("button", { name: "Create identity" }).isDisabled()).toBe(true);
    await page.getByText("Your root key lacks identity.*.create_identity: it cannot create identities.").waitFor();
    await page.getByRole("status").waitFor({ state: "detached" });
    expect(await page.getByRole("alert").count()).toBe(0);

    // No api or namespace may be read: the lists are not asked for, the page says why, and the controls are off.
    await page.getByRole("link", { name: "APIs and keys" }).click();
    await page.getByText("Your root key lacks api.*.read_api: the list is not available.").waitFor();
    expect(await page.getByRole("button", { name: "Create API" }).isDisabled()).toBe(true);
    await page.getByText("Your root key lacks api.*.create_api: it cannot create APIs.").waitFor();
    expect(await page.getByRole("search", { name: "Search APIs" }).getByRole("button", { name: "Search" }).getAttribute("title"))
      .toBe("Your root key lacks api.*.read_api");
    expect(await page.getByRole("alert").count()).toBe(0);
    await page.getByRole("link", { name: "Rate limits" }).click();
    await page.getByText("Your root key lacks ratelimit.*.read_namespace: the list is not available.").waitFor();
    expect(await page.getByRole("button", { name: "Open namespace" }).isDisabled()).toBe(true);
    expect(await page.getByRole("search", { name: "Search namespaces" }).getByRole("button", { name: "Search" }).isDisabled()).toBe(true);
    expect(await page.getByRole("alert").count()).toBe(0);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
  });
});
