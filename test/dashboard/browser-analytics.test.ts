import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { allPermissions } from "../../src/domain/permissions.js";
import { openBrowser, screenshotBoth } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
let browser: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
const HOUR = 3_600_000;

beforeAll(async () => {
  browser = await openBrowser();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const url = (hash: string) => `${h.keyward.baseUrl}/dashboard#${hash}`;

async function signIn(rootKey: string, hash: string) {
  await page.goto(url(hash));
  await page.getByLabel("Root key").fill(rootKey);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Waits until the page has no progress message left (the chart and the top keys may both be loading at once). */
const settled = () => expect.poll(() => page.getByRole("status").count()).toBe(0);

describe("analytics and audit log in a real browser", () => {
  it("charts the verifications made, by outcome, tag and key, and lists the changes with their actions", { timeout: 90_000 }, async () => {
    // Every change of the scenario is made by one root key, so its audit records can be picked by actor; each
    // one second after the last, so the page shows them at distinct times.
    const auditor = await h.seed.rootKey(allPermissions(), { name: "auditor" });
    const by = auditor.key;
    const tick = () => h.clock.advance(1000);
    tick();
    const temporary = await h.seed.rootKey(["api.*.read_api"], { name: "temporary", by });
    tick();
    expect((await h.rest.v2("rootKeys.deleteRootKey", { keyId: temporary.keyId }, by)).status).toBe(200);
    tick();
    const apiId = await h.seed.api({ name: "metered-api", by });
    tick();
    const { keyId, key } = await h.seed.key(apiId, { name: "metered", credits: { remaining: 5 } }, { by });
    tick();
    expect((await h.rest.v2("keys.updateKey", { keyId, name: "metered-key" }, by)).status).toBe(200);
    for (let i = 0; i < 7; i++) {
      tick();
      expect((await h.rest.v2("identities.createIdentity", { externalId: `audited_${i}` }, by)).status).toBe(200);
    }

    // 7 verifications: 5 VALID (the 5 credits), then 2 USAGE_EXCEEDED; 4 of them also tagged region=eu.
    const codes: string[] = [];
    for (let i = 0; i < 7; i++) {
      const tags = i % 2 === 0 ? ["run=browser", "region=eu"] : ["run=browser"];
      codes.push((await h.rest.v2("keys.verifyKey", { key, tags }, by)).body.data.code);
    }
    expect(codes).toEqual(["VALID", "VALID", "VALID", "VALID", "VALID", "USAGE_EXCEEDED", "USAGE_EXCEEDED"]);
    // The batcher writes events about once a second: ask the API until all 7 are there.
    const now = h.clock.now();
    const recorded = async () => {
      const answer = await h.rest.v2("analytics.getVerifications", { start: now - HOUR, end: now + HOUR, granularity: "hour", keyIds: [keyId] }, by);
      return (answer.body.data as { total: number }[]).reduce((sum, row) => sum + Number(row.total), 0);
    };
    await expect.poll(recorded, { timeout: 10_000, interval: 100 }).toBe(7);

    // The server runs on a manual clock; the page picks its time ranges from the browser's, so both agree.
    await browser.context.clock.setFixedTime(h.clock.now());

    // The key page: its usage chart counts the 7, by outcome.
    await signIn(h.keyward.rootKey, `/keys/${keyId}`);
    await page.getByRole("heading", { name: "Key metered-key" }).waitFor();
    const usage = page.getByRole("figure", { name: "Usage of this key" });
    await usage.getByText("7 verifications").waitFor();
    expect(await usage.getByRole("list", { name: "By outcome" }).innerText()).toMatch(/^VALID: 5\s+USAGE_EXCEEDED: 2$/);
    expect(await usage.getByRole("img").getAttribute("aria-label")).toBe("Usage of this key: 7 verifications by outcome over time");
    // The numbers under the chart: one hour bucket with all 7.
    await usage.getByText("Show the numbers").click();
    expect(await usage.getByRole("row").nth(1).innerText()).toMatch(/^2030-01-01 00:00 UTC\s+5\s+2\s+7$/);
    await screenshotBoth(page, "12-key-usage");

    // Analytics: the workspace's verifications filtered by tag (any, then all), and the top keys.
    await page.getByRole("link", { name: "Analytics" }).click();
    await page.getByRole("heading", { name: "Verification analytics", level: 1 }).waitFor();
    const filters = page.getByRole("form", { name: "Analytics filters" });
    const chart = page.getByRole("figure", { name: "Verifications over time" });
    await filters.getByLabel("Tags", { exact: true }).fill("run=browser");
    await filters.getByRole("button", { name: "Show" }).click();
    await settled();
    await chart.getByText("7 verifications").waitFor();
    // The top keys name each key and its API.
    const top = page.getByRole("table", { name: "Top by key" });
    expect(await top.getByRole("row").nth(1).innerText()).toMatch(new RegExp(`^metered-key\\s+${keyId}\\s+${apiId}\\s+7\\s+5$`));
    await screenshotBoth(page, "09-analytics");

    await filters.getByLabel("Tags", { exact: true }).fill("run=browser, region=eu");
    await filters.getByLabel("Tags match").selectOption("all");
    await filters.getByRole("button", { name: "Show" }).click();
    await chart.getByText("4 verifications").waitFor();
    expect(await chart.getByRole("list", { name: "By outcome" }).innerText()).toMatch(/^VALID: 3\s+USAGE_EXCEEDED: 1$/);
    await filters.getByLabel("Tags match").selectOption("any");
    await filters.getByRole("button", { name: "Show" }).click();
    await chart.getByText("7 verifications").waitFor();
    // Minute buckets of the last hour: still the same 7, by keyboard only.
    await filters.getByLabel("Time range").focus();
    await page.keyboard.press("ArrowUp"); // "Last hour": only minute buckets
    expect(await filters.getByLabel("Granularity").inputValue()).toBe("minute");
    await chart.getByText("7 verifications").waitFor();

    // Narrowed by API, key and outcome, grouped by outcome: the view is in the address, and a reload shows the same numbers.
    await filters.getByLabel("API", { exact: true }).fill(apiId);
    await filters.getByLabel("Key", { exact: true }).fill(keyId);
    await filters.getByLabel("Outcome", { exact: true }).selectOption("USAGE_EXCEEDED");
    await filters.getByLabel("Group by", { exact: true }).selectOption("outcome");
    await filters.getByRole("button", { name: "Show" }).click();
    await settled();
    await chart.getByText("2 verifications").waitFor();
    const byOutcome = page.getByRole("table", { name: "Top by outcome" });
    expect(await byOutcome.getByRole("row").nth(1).innerText()).toMatch(/^USAGE_EXCEEDED\s+2\s+0$/);
    const query = new URLSearchParams(page.url().split("?")[1]);
    expect(Object.fromEntries(query)).toEqual({
      range: "1h", granularity: "minute", apiId, keyId, outcome: "USAGE_EXCEEDED", tags: "run=browser, region=eu", groupBy: "outcome",
    });
    await page.reload();
    await settled();
    await chart.getByText("2 verifications").waitFor();
    expect(await chart.getByRole("list", { name: "By outcome" }).innerText()).toMatch(/^USAGE_EXCEEDED: 2$/);
    expect(await byOutcome.getByRole("row").nth(1).innerText()).toMatch(/^USAGE_EXCEEDED\s+2\s+0$/);
    expect(await filters.getByLabel("Outcome", { exact: true }).inputValue()).toBe("USAGE_EXCEEDED");
    expect(await filters.getByLabel("Time range").inputValue()).toBe("1h");
    await screenshotBoth(page, "09-analytics-from-url");
    // Another API: nothing.
    await filters.getByLabel("API", { exact: true }).fill("api_1111111111111111111111");
    await filters.getByRole("button", { name: "Show" }).click();
    await settled();
    await chart.getByText("0 verifications").waitFor();

    // The audit log shows the scenario's changes newest first, with their action names and the actor's name, 10 per page.
    await page.getByRole("link", { name: "Audit log" }).click();
    const auditFilters = page.getByRole("form", { name: "Audit log filters" });
    await auditFilters.getByLabel("Actor").fill(auditor.keyId);
    await auditFilters.getByLabel("Per page").selectOption("10");
    await auditFilters.getByRole("button", { name: "Apply filters" }).click();
    await settled();
    const records = page.getByRole("table", { name: "Audit records" });
    const actions = () => records.getByRole("code").allInnerTexts();
    await expect.poll(actions, { timeout: 10_000 }).toEqual([
      ...Array.from({ length: 7 }, () => "identity.create"), "key.update", "key.create", "api.create",
    ]);
    const updated = records.getByRole("row", { name: /key\.update/ });
    expect(await updated.innerText()).toContain(keyId);
    expect(await updated.getByRole("cell").nth(1).innerText()).toBe(`auditor\n${auditor.keyId}`);
    expect(await page.content()).not.toContain(key);
    await screenshotBoth(page, "10-audit-log");
    await page.getByRole("button", { name: "Next page" }).click();
    await expect.poll(actions, { timeout: 10_000 }).toEqual(["rootKey.delete", "rootKey.create"]);
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);

    // Filters by action and resource: the key's two records only, and oldest first when asked.
    await auditFilters.getByLabel("Actions").fill("key.create, key.update, api.create");
    await auditFilters.getByLabel("Resource id").fill(keyId);
    await auditFilters.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(actions, { timeout: 10_000 }).toEqual(["key.update", "key.create"]);
    await auditFilters.getByLabel("Order").selectOption("oldest_first");
    await auditFilters.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(actions, { timeout: 10_000 }).toEqual(["key.create", "key.update"]);
    // Until is exclusive: the key was created at 00:00:04 and updated at 00:00:05. Times are typed ISO, 24-hour.
    await auditFilters.getByLabel("Until (UTC)").fill("2030-01-01 00:00:05");
    await auditFilters.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(actions, { timeout: 10_000 }).toEqual(["key.create"]);
    // The filters are in the address: a reload shows the same view.
    expect(page.url()).toContain("#/audit-log?");
    expect(new URLSearchParams(page.url().split("?")[1]).get("to")).toBe("2030-01-01 00:00:05");
    await page.reload();
    await expect.poll(actions, { timeout: 10_000 }).toEqual(["key.create"]);
    expect(await auditFilters.getByLabel("Until (UTC)").inputValue()).toBe("2030-01-01 00:00:05");
    expect(await auditFilters.getByLabel("Order").inputValue()).toBe("oldest_first");
    // A time in another format is refused in words, and the records stay as they were.
    await auditFilters.getByLabel("From (UTC)").fill("01/01/2030 1:00 AM");
    await auditFilters.getByRole("button", { name: "Apply filters" }).click();
    await auditFilters.getByRole("alert").filter({ hasText: "From: “01/01/2030 1:00 AM” is not a time: write it as YYYY-MM-DD HH:MM[:SS] (UTC, 24-hour)" }).waitFor();
    expect(await actions()).toEqual(["key.create"]);
    // A time range after the scenario matches nothing.
    await auditFilters.getByLabel("Until (UTC)").fill("");
    await auditFilters.getByLabel("From (UTC)").fill("2030-01-01 01:00");
    await auditFilters.getByRole("button", { name: "Apply filters" }).click();
    await records.getByRole("cell", { name: "No audit records match." }).waitFor();
    expect(await auditFilters.getByRole("alert").count()).toBe(0);
    await screenshotBoth(page, "10-audit-log-filtered");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
  });

  it("disables analytics and the audit log for a root key without read_analytics and read_audit_log", { timeout: 60_000 }, async () => {
    const { key } = await h.seed.rootKey(["identity.*.read_identity"], { name: "no-analytics" });
    await browser.context.clearCookies();
    await page.goto("about:blank"); // a hash-only change would not load the page anew
    await signIn(key, "/analytics");
    await page.getByRole("heading", { name: "Verification analytics", level: 1 }).waitFor();
    const show = page.getByRole("button", { name: "Show" });
    expect(await show.isDisabled()).toBe(true);
    expect(await show.getAttribute("title")).toBe("Your root key lacks api.*.read_analytics");
    await page.getByRole("note").filter({ hasText: "lacks api.*.read_analytics" }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await screenshotBoth(page, "13-restricted-analytics");

    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
    const apply = page.getByRole("button", { name: "Apply filters" });
    expect(await apply.isDisabled()).toBe(true);
    expect(await apply.getAttribute("title")).toBe("Your root key lacks workspace.*.read_audit_log");
    expect(await page.getByRole("table").count()).toBe(0);
    expect(await page.getByText("workspace.*.read_audit_log").count()).toBe(1);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
  });
});
