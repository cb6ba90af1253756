import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openBrowser, screenshotBoth } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
let browser: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;

beforeAll(async () => {
  browser = await openBrowser();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** As the dashboard writes a time: ISO in UTC to the second. */
const shown = (ms: number) => `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;

describe("dashboard: when a key was last used", () => {
  it("the api's key list and the key page show the last verification, and never for a key not verified", { timeout: 90_000 }, async () => {
    const apiId = await h.seed.api({ name: "usage-api" });
    const used = await h.seed.key(apiId, { name: "used-key" });
    await h.seed.key(apiId, { name: "idle-key" });
    h.clock.advance(90_000);
    const verifiedAt = h.clock.now();
    expect((await h.rest.v2("keys.verifyKey", { key: used.key }, h.keyward.rootKey)).body.data.code).toBe("VALID");
    await h.keyward.stores.events.flush();

    await page.goto(`${h.keyward.baseUrl}/dashboard#/apis/${apiId}`);
    await page.getByLabel("Root key").fill(h.keyward.rootKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Api usage-api" }).waitFor();
    const header = page.getByRole("columnheader", { name: "Last used" });
    await header.waitFor();
    const usedRow = page.getByRole("row", { name: /used-key/ });
    const idleRow = page.getByRole("row", { name: /idle-key/ });
    await expect.poll(() => usedRow.getByRole("cell").nth(4).textContent()).toBe(shown(verifiedAt));
    expect(await idleRow.getByRole("cell").nth(4).textContent()).toBe("never");
    await screenshotBoth(page, "09-keys-last-used");

    await usedRow.getByRole("link").click();
    await page.getByRole("heading", { name: "Key used-key" }).waitFor();
    const facts = page.locator("dl.facts");
    await expect.poll(() => facts.locator("dt:has-text('Last used') + dd").textContent()).toBe(shown(verifiedAt));
    await screenshotBoth(page, "10-key-last-used");

    await page.goBack();
    await idleRow.getByRole("link").click();
    await page.getByRole("heading", { name: "Key idle-key" }).waitFor();
    await expect.poll(() => facts.locator("dt:has-text('Last used') + dd").textContent()).toBe("never");
  });
});
