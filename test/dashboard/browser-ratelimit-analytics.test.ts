import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);
const MINUTE = 60_000;
const HOUR = 3_600_000;

describe("rate-limit namespace page in a real browser: checks over time and overrides", () => {
  it("charts a namespace's passed and blocked checks, opened from the list or by name; a bad window is refused in words", { timeout: 120_000 }, async () => {
    // 5 checks of "api.login" (limit 3): 3 passed, 2 blocked; 1 check of another namespace, which must not count.
    const codes: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      codes.push((await h.rest.v2("ratelimit.limit", { namespace: "api.login", identifier: "alice", limit: 3, duration: MINUTE }, h.keyward.rootKey)).body.data.success);
    }
    expect(codes).toEqual([true, true, true, false, false]);
    expect((await h.rest.v2("ratelimit.limit", { namespace: "api.other", identifier: "alice", limit: 3, duration: MINUTE }, h.keyward.rootKey)).status).toBe(200);
    // The batcher writes events about once a second: ask the API until all 6 are there.
    const now = h.clock.now();
    const recorded = async () => {
      const answer = await h.rest.v2("analytics.getRatelimits", { start: now - HOUR, end: now + HOUR, granularity: "hour" }, h.keyward.rootKey);
      return (answer.body.data as { total: number }[]).reduce((sum, row) => sum + Number(row.total), 0);
    };
    await expect.poll(recorded, { timeout: 10_000, interval: 100 }).toBe(6);
    // The server runs on a manual clock; the page picks its time ranges from the browser's, so both agree.
    await ui.page.context().clock.setFixedTime(h.clock.now());

    await ui.signIn(h.keyward.rootKey, "/ratelimits");
    await ui.page.getByRole("row", { name: /api\.login/ }).getByRole("button", { name: "api.login" }).click();
    await ui.page.getByRole("heading", { name: "Namespace “api.login”" }).waitFor();
    const chart = ui.page.getByRole("figure", { name: "Checks of this namespace" });
    await chart.getByText("5 checks").waitFor();
    expect(await chart.getByRole("list", { name: "By outcome" }).innerText()).toMatch(/^PASSED: 3\s+BLOCKED: 2$/);
    expect(await chart.getByRole("img").getAttribute("aria-label")).toBe("Checks of this namespace: 5 checks by outcome over time");
    await chart.getByText("Show the numbers").click();
    expect(await chart.getByRole("row").nth(1).innerText()).toMatch(/^2030-01-01 00:00 UTC\s+3\s+2\s+5$/);
    await screenshotBoth(ui.page, "ratelimit-analytics-01-namespace");

    // By minute over the last hour: the same 5, in one bucket.
    const range = ui.page.getByRole("form", { name: "Checks range" });
    await range.getByLabel("Time range").selectOption("1h");
    expect(await range.getByLabel("Granularity").inputValue()).toBe("minute");
    await expect.poll(() => ui.page.getByRole("status").count()).toBe(0);
    await chart.getByText("5 checks").waitFor();
    // The numbers stay open across the reload.
    expect(await chart.getByRole("row").nth(1).innerText()).toMatch(/^2030-01-01 00:00 UTC\s+3\s+2\s+5$/);

    // Opened by typing its name, the chart finds the namespace's id; one with no checks says so.
    const open = ui.page.getByRole("form", { name: "Open a namespace" });
    await open.getByLabel("Namespace").fill("api.other");
    await open.getByRole("button", { name: "Open namespace" }).click();
    await ui.page.getByRole("figure", { name: "Checks of this namespace" }).getByText("1 check", { exact: true }).waitFor();

    // A window in words: "abc" and "500 ms" are refused with the reason, and nothing is set.
    const override = ui.page.getByRole("form", { name: "Set an override" });
    await override.getByLabel("Identifier").fill("alice");
    await override.getByLabel("Limit").fill("10");
    await override.getByLabel("Window").fill("abc");
    await override.getByRole("button", { name: "Set override" }).click();
    await override.getByRole("alert").filter({ hasText: "“abc” is not a duration: write a number and a unit, e.g. 60 s, 5 min, 1 h or 1 d." }).waitFor();
    await override.getByLabel("Window").fill("500 ms");
    await override.getByRole("button", { name: "Set override" }).click();
    await override.getByRole("alert").filter({ hasText: "The window must be at least 1 s." }).waitFor();
    expect((await h.rest.v2("ratelimit.listOverrides", { namespace: "api.other" }, h.keyward.rootKey)).body.data).toEqual([]);
    await override.getByLabel("Window").fill("5 min");
    await override.getByRole("button", { name: "Set override" }).click();
    await ui.page.getByRole("row", { name: /alice/ }).getByRole("cell", { name: "5 min" }).waitFor();
    expect((await h.rest.v2("ratelimit.getOverride", { namespace: "api.other", identifier: "alice" }, h.keyward.rootKey)).body.data)
      .toMatchObject({ identifier: "alice", limit: 10, duration: 300_000 });
    expect(await override.getByRole("alert").count()).toBe(0);
    await screenshotBoth(ui.page, "ratelimit-analytics-02-override");
  });

  it("a root key without ratelimit read_analytics sees the overrides but no chart, the reason named once", { timeout: 60_000 }, async () => {
    const { key } = await h.seed.rootKey(["ratelimit.*.read_namespace", "ratelimit.*.read_override"], { name: "overrides-reader" });
    await ui.page.context().clearCookies();
    await ui.page.goto("about:blank"); // the same hash again would not load the page anew
    await ui.signIn(key, "/ratelimits");
    await ui.page.getByRole("row", { name: /api\.login/ }).getByRole("button", { name: "api.login" }).click();
    await ui.page.getByRole("heading", { name: "Namespace “api.login”" }).waitFor();
    const reason = "Your root key lacks ratelimit.*.read_analytics: the chart is not available.";
    await ui.page.getByText(reason).waitFor();
    expect(await ui.page.getByText("ratelimit.*.read_analytics", { exact: false }).count()).toBe(1);
    expect(await ui.page.getByRole("form", { name: "Checks range" }).getByRole("button", { name: "Refresh" }).isDisabled()).toBe(true);
    expect(await ui.page.getByRole("figure").count()).toBe(0);
    const set = ui.page.getByRole("form", { name: "Set an override" }).getByRole("button", { name: "Set override" });
    expect(await set.isDisabled()).toBe(true);
    expect(await set.getAttribute("title")).toBe("Your root key lacks ratelimit.*.set_override");
    await ui.page.getByRole("cell", { name: "No overrides." }).waitFor();
    expect(await ui.page.getByRole("alert").count()).toBe(0);
    await screenshotBoth(ui.page, "ratelimit-analytics-03-restricted");
  });
});
