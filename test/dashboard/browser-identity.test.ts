import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);
const HOUR = 3_600_000;

describe("identity page in a real browser: keys, shared rate limits, usage, metadata, delete", () => {
  it("lists the identity's keys, sets shared limits its keys then share, charts their usage and deletes it", { timeout: 120_000 }, async () => {
    const created = await h.rest.v2("identities.createIdentity", { externalId: "acme" }, h.keyward.rootKey);
    const identityId = created.body.data.identityId as string;
    const web = await h.seed.api({ name: "web-api" });
    const mobile = await h.seed.api({ name: "mobile-api" });
    const a = await h.seed.key(web, { name: "acme-web", externalId: "acme" });
    const b = await h.seed.key(mobile, { name: "acme-mobile", externalId: "acme" });
    await h.seed.key(web, { name: "someone-else" });

    await ui.signIn(h.keyward.rootKey, `/identities/${identityId}`);
    await ui.page.getByRole("heading", { name: "Identity acme", level: 1 }).waitFor();
    const keys = ui.page.getByRole("table", { name: "Keys of this identity" });
    await keys.waitFor();
    expect((await keys.getByRole("link").allInnerTexts()).sort()).toEqual(["acme-mobile", "acme-web", "mobile-api", "web-api"]);

    // Shared limit: 2 per minute across both keys; bad metadata is refused in words first.
    const settings = ui.page.getByRole("form", { name: "Metadata and rate limits" });
    await settings.getByLabel("Metadata (JSON)").fill("[1, 2]");
    await settings.getByRole("button", { name: "Add a rate limit" }).click();
    const limit = settings.getByRole("group", { name: "Rate limit 1" });
    await limit.getByLabel("Limit name").fill("requests");
    await limit.getByLabel("Limit", { exact: true }).fill("2");
    await limit.getByLabel("Window").fill("1 min");
    await settings.getByRole("button", { name: "Save metadata and limits" }).click();
    await settings.getByRole("alert").filter({ hasText: "Metadata must be a JSON object" }).waitFor();
    expect((await h.rest.v2("identities.getIdentity", { identity: identityId }, h.keyward.rootKey)).body.data.ratelimits).toEqual([]);
    await settings.getByLabel("Metadata (JSON)").fill("{\"plan\": \"enterprise\"}");
    await settings.getByRole("button", { name: "Save metadata and limits" }).click();
    await settings.getByText("Saved.").waitFor();
    await ui.page.getByText("Rate limits: requests: 2 per 1 min").waitFor();
    const stored = (await h.rest.v2("identities.getIdentity", { identity: identityId }, h.keyward.rootKey)).body.data;
    expect(stored).toMatchObject({ meta: { plan: "enterprise" }, ratelimits: [{ name: "requests", limit: 2, duration: 60_000 }] });

    const verify = async (key: string) => (await h.rest.v2("keys.verifyKey", { key, ratelimits: [{ name: "requests" }] }, h.keyward.rootKey)).body.data.code;
    expect([await verify(a.key), await verify(b.key), await verify(a.key)]).toEqual(["VALID", "VALID", "RATE_LIMITED"]);
    const now = h.clock.now();
    const recorded = async () => {
      const answer = await h.rest.v2("analytics.getVerifications", { start: now - HOUR, end: now + HOUR, granularity: "hour", identityIds: [identityId] }, h.keyward.rootKey);
      return (answer.body.data as { total: number }[]).reduce((sum, row) => sum + Number(row.total), 0);
    };
    await expect.poll(recorded, { timeout: 10_000, interval: 100 }).toBe(3);
    await ui.page.context().clock.setFixedTime(h.clock.now());
    await ui.page.getByRole("form", { name: "Usage range" }).getByRole("button", { name: "Refresh" }).click();
    const usage = ui.page.getByRole("figure", { name: "Usage of this identity's keys" });
    await usage.getByText("3 verifications").waitFor();
    expect(await usage.getByRole("list", { name: "By outcome" }).innerText()).toMatch(/^VALID: 2\s+RATE_LIMITED: 1$/);
    await screenshotBoth(ui.page, "identity-01-page");

    await ui.page.getByRole("button", { name: "Delete identity" }).click();
    await ui.page.getByRole("button", { name: "Delete identity now" }).click();
    await ui.page.getByRole("heading", { name: "Identities", level: 1 }).waitFor();
    expect((await h.rest.v2("identities.getIdentity", { identity: identityId }, h.keyward.rootKey)).status).toBe(404);
    // The keys stay, without the identity.
    expect((await h.rest.v2("keys.verifyKey", { key: a.key }, h.keyward.rootKey)).body.data.code).toBe("VALID");
  });

  it("a root key that may only read identities sees the settings and delete disabled, each reason named once", { timeout: 60_000 }, async () => {
    const created = await h.rest.v2("identities.createIdentity", { externalId: "readonly-co" }, h.keyward.rootKey);
    const { key } = await h.seed.rootKey(["identity.*.read_identity"], { name: "identity-reader" });
    await ui.page.context().clearCookies();
    await ui.page.goto("about:blank");
    await ui.signIn(key, `/identities/${created.body.data.identityId}`);
    await ui.page.getByRole("heading", { name: "Identity readonly-co", level: 1 }).waitFor();
    await ui.page.getByText("Your root key lacks api.*.read_api: the identity's keys cannot be listed.").waitFor();
    const save = ui.page.getByRole("button", { name: "Save metadata and limits" });
    expect([await save.isDisabled(), await save.getAttribute("title")]).toEqual([true, "Your root key lacks identity.*.update_identity"]);
    expect(await ui.page.getByRole("form", { name: "Metadata and rate limits" }).getByLabel("Metadata (JSON)").isDisabled()).toBe(true);
    const remove = ui.page.getByRole("button", { name: "Delete identity" });
    expect([await remove.isDisabled(), await remove.getAttribute("title")]).toEqual([true, "Your root key lacks identity.*.delete_identity"]);
    await ui.page.getByRole("note").filter({ hasText: "lacks api.*.read_analytics" }).waitFor();
    expect(await ui.page.getByRole("alert").count()).toBe(0);
    await screenshotBoth(ui.page, "identity-02-restricted");
  });
});
