import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);

const balance = (id: string) => h.keyward.stores.counters.readCredits(id, id);
const stored = (id: string) => h.keyward.documents.identities.get(h.keyward.workspaceId, id);

describe("identity page in a real browser: the identity's shared credits", () => {
  it("shows, sets (a bad refill named), refills monthly and removes the credits; the list shows them", { timeout: 120_000 }, async () => {
    const created = await h.rest.v2("identities.createIdentity", { externalId: "browser_tenant", credits: { remaining: 40 } }, h.keyward.rootKey);
    const identityId = created.body.data.identityId as string;
    await ui.signIn(h.keyward.rootKey, "/identities");
    await ui.page.getByRole("cell", { name: "40 left" }).waitFor();
    await ui.page.getByRole("link", { name: "browser_tenant" }).click();
    await ui.page.getByRole("heading", { name: "Identity browser_tenant", level: 1 }).waitFor();
    expect(await ui.page.getByTestId("identity-credits").textContent()).toBe("40 left");

    const form = ui.page.getByRole("form", { name: "Shared credits" });
    expect(await form.getByLabel("Balance").inputValue()).toBe("40");
    // A monthly refill without its day is refused, naming the field; nothing changes.
    await form.getByLabel("Balance").fill("250");
    await form.getByRole("combobox", { name: "Refill" }).selectOption("monthly");
    await form.getByLabel("Refill amount").fill("500");
    await form.getByRole("button", { name: "Save credits" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("refillDay");
    expect(await balance(identityId)).toBe(40);

    await form.getByLabel("Refill day").fill("15");
    await form.getByRole("button", { name: "Save credits" }).click();
    await form.getByText("Saved.").waitFor();
    expect(await ui.page.getByTestId("identity-credits").textContent()).toBe("250 left, refilled to 500 on day 15 of each month");
    expect((await stored(identityId))?.credits).toEqual({ refill: { interval: "monthly", amount: 500, refillDay: 15 } });
    expect(await balance(identityId)).toBe(250);
    await screenshotBoth(ui.page, "identity-credits-01-saved");

    // A key of the identity spends from the shared balance; a reload shows it.
    const apiId = await h.seed.api({ name: "browser-identity-credits" });
    const { key } = await h.seed.key(apiId, { externalId: "browser_tenant" });
    expect((await h.rest.v2("keys.verifyKey", { key, credits: { cost: 10 } }, h.keyward.rootKey)).body.data.identity.credits.remaining).toBe(240);
    await ui.page.reload();
    await ui.page.getByTestId("identity-credits").waitFor();
    expect(await ui.page.getByTestId("identity-credits").textContent()).toBe("240 left, refilled to 500 on day 15 of each month");

    // An empty balance with no refill removes the shared credits.
    await form.getByLabel("Balance").fill("");
    await form.getByRole("combobox", { name: "Refill" }).selectOption("");
    await form.getByRole("button", { name: "Save credits" }).click();
    await form.getByText("Saved.").waitFor();
    expect(await ui.page.getByTestId("identity-credits").textContent()).toBe("none");
    expect((await stored(identityId))?.credits).toBeUndefined();
    expect(await balance(identityId)).toBeUndefined();
    await ui.page.getByRole("link", { name: "← Identities" }).click();
    await ui.page.getByRole("cell", { name: "none" }).last().waitFor();
    await screenshotBoth(ui.page, "identity-credits-02-list");
  });

  it("a root key without update_identity sees the credits read only", { timeout: 60_000 }, async () => {
    const created = await h.rest.v2("identities.createIdentity", { externalId: "browser_readonly", credits: { remaining: 3 } }, h.keyward.rootKey);
    const { key } = await h.seed.rootKey(["identity.*.read_identity"], { name: "identity-reader" });
    await ui.page.context().clearCookies();
    await ui.signIn(key, `/identities/${created.body.data.identityId}`);
    await ui.page.getByRole("heading", { name: "Identity browser_readonly", level: 1 }).waitFor();
    const form = ui.page.getByRole("form", { name: "Shared credits" });
    await form.getByText("Your root key lacks identity.*.update_identity").waitFor();
    expect(await form.getByLabel("Balance").isDisabled()).toBe(true);
    expect(await form.getByRole("button", { name: "Save credits" }).isDisabled()).toBe(true);
  });
});
