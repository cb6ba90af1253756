import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);

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

    await ui.signIn(h.keyward.rootKey, `/apis/${apiId}`);
    await ui.page.getByRole("heading", { name: "API usage-api" }).waitFor();
    const header = ui.page.getByRole("columnheader", { name: "Last used" });
    await header.waitFor();
    const usedRow = ui.page.getByRole("row", { name: /used-key/ });
    const idleRow = ui.page.getByRole("row", { name: /idle-key/ });
    await expect.poll(() => usedRow.getByRole("cell").nth(4).textContent()).toBe(shown(verifiedAt));
    expect(await idleRow.getByRole("cell").nth(4).textContent()).toBe("never");
    await screenshotBoth(ui.page, "09-keys-last-used");

    await usedRow.getByRole("link").click();
    await ui.page.getByRole("heading", { name: "Key used-key" }).waitFor();
    const facts = ui.page.locator("dl.facts");
    await expect.poll(() => facts.locator("dt:has-text('Last used') + dd").textContent()).toBe(shown(verifiedAt));
    await screenshotBoth(ui.page, "10-key-last-used");

    await ui.page.goBack();
    await idleRow.getByRole("link").click();
    await ui.page.getByRole("heading", { name: "Key idle-key" }).waitFor();
    await expect.poll(() => facts.locator("dt:has-text('Last used') + dd").textContent()).toBe("never");
  });
});
