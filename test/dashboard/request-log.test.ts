import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.js";
import { dashboardRpc, dashboardSignIn } from "../support/dashboard.js";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { deltas, scrape, series } from "../support/prometheus.js";
import { restClient } from "../support/rest.js";

/** A server whose log lines this test reads itself, parsed; every successful request logged too. */
let keyward: RunningKeyward;
const lines: string[] = [];
const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
beforeAll(async () => {
  const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
  keyward = await startKeyward({ logger, logSampleRate: 1 });
});
afterAll(() => keyward?.stop());

const base = () => keyward.baseUrl;
const signInWith = (rootKey: string) => fetch(`${base()}/dashboard/api/sign-in`, {
  method: "POST", headers: { "content-type": "application/json", "x-keyward-csrf": "sign-in", origin: base() }, body: JSON.stringify({ rootKey }),
});

describe("dashboard requests are logged, carry x-request-id and count apart from API clients", () => {
  it("a failed sign-in: 401 with a request id, one log line with that id, and no secret", async () => {
    lines.length = 0;
    const wrongKey = "kw_wrong_root_key_0123456789";
    const answer = await signInWith(wrongKey);
    expect(answer.status).toBe(401);
    const requestId = answer.headers.get("x-request-id");
    expect(requestId).toMatch(/^req_/);
    await answer.arrayBuffer();
    expect(parsed()).toEqual([{
      level: 30, time: expect.any(Number), pid: process.pid, msg: "request",
      requestId, transport: "dashboard-http", route: "sign-in", status: 401, durationMs: expect.any(Number),
    }]);
    expect(lines.join("")).not.toContain(wrongKey);
  });

  it("a CSRF refusal and a cross-origin refusal of an RPC: 403 with request ids, logged under the dashboard transport", async () => {
    const session = await dashboardSignIn(base(), keyward.rootKey);
    lines.length = 0;
    const method = "keyward.v1.ApisService/CreateApi";
    const noCsrf = await fetch(`${base()}/dashboard/rpc/${method}`, {
      method: "POST", headers: { "content-type": "application/json", cookie: `kw_dashboard_session=${session.token}` }, body: "{}",
    });
    const foreign = await fetch(`${base()}/dashboard/rpc/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `kw_dashboard_session=${session.token}`, "x-keyward-csrf": session.csrf, origin: "https://evil.example" },
      body: "{}",
    });
    expect([noCsrf.status, (await noCsrf.json()).message]).toEqual([403, "The x-keyward-csrf header is missing."]);
    expect([foreign.status, (await foreign.json()).message]).toEqual([403, "Requests from another origin are refused."]);
    const ids = [noCsrf.headers.get("x-request-id"), foreign.headers.get("x-request-id")];
    expect(ids[0]).toMatch(/^req_/);
    expect(ids[1]).toMatch(/^req_/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(parsed().map(({ requestId, transport, route, status, msg }) => ({ requestId, transport, route, status, msg }))).toEqual([
      { requestId: ids[0], transport: "dashboard", route: "ApisService.CreateApi", status: "permission_denied", msg: "request" },
      { requestId: ids[1], transport: "dashboard", route: "ApisService.CreateApi", status: "permission_denied", msg: "request" },
    ]);
    expect(lines.join("")).not.toContain(session.token);
    // Nothing was created.
    expect((await restClient(base()).v2("apis.listApis", {}, keyward.rootKey)).body.data).toEqual([]);
  });

  it("every dashboard answer carries a request id; dashboard calls count as transport=\"dashboard\", not \"connect\"", async () => {
    const before = await scrape(base());
    const session = await dashboardSignIn(base(), keyward.rootKey);
    lines.length = 0;
    const created = await fetch(`${base()}/dashboard/rpc/keyward.v1.ApisService/CreateApi`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `kw_dashboard_session=${session.token}`, "x-keyward-csrf": session.csrf },
      body: JSON.stringify({ name: "from-the-dashboard" }),
    });
    expect(created.status).toBe(200);
    await created.arrayBuffer();
    const page = await fetch(`${base()}/dashboard`);
    const icon = await fetch(`${base()}/dashboard/assets/favicon.svg`);
    const missing = await fetch(`${base()}/dashboard/nowhere`);
    for (const answer of [created, page, icon, missing]) expect(answer.headers.get("x-request-id")).toMatch(/^req_/);
    expect([page.status, icon.status, icon.headers.get("content-type"), missing.status]).toEqual([200, 200, "image/svg+xml", 404]);
    expect(await icon.text()).toMatch(/^<svg /);
    expect(await page.text()).toContain(`<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">`);
    await missing.arrayBuffer();
    expect(parsed().map(({ transport, route, status }) => `${transport} ${route} ${status}`)).toEqual([
      "dashboard ApisService.CreateApi ok", "dashboard-http page 200", "dashboard-http asset 200", "dashboard-http other 404",
    ]);
    const changed = deltas(before, await scrape(base()), "keyward_requests_total");
    expect(changed).toEqual({
      [series("keyward_requests_total", { transport: "dashboard-http", route: "sign-in", status: "200" })]: 1,
      [series("keyward_requests_total", { transport: "dashboard", route: "ApisService.CreateApi", status: "ok" })]: 1,
      [series("keyward_requests_total", { transport: "dashboard-http", route: "page", status: "200" })]: 1,
      [series("keyward_requests_total", { transport: "dashboard-http", route: "asset", status: "200" })]: 1,
      [series("keyward_requests_total", { transport: "dashboard-http", route: "other", status: "404" })]: 1,
    });
  });

  it("a change made from the dashboard is audited with the client's address, like an API change", async () => {
    const session = await dashboardSignIn(base(), keyward.rootKey);
    const created = await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", { name: "audited-from-dashboard" });
    expect(created.status).toBe(200);
    const viaApi = await restClient(base()).v2("apis.createApi", { name: "audited-from-api" }, keyward.rootKey);
    expect(viaApi.status).toBe(200);
    const logs = await dashboardRpc(base(), session, "keyward.v1.AuditLogsService/ListAuditLogs", {});
    const byApi = (id: string) => (logs.body.data as { action: string; resources: { id: string }[]; remoteAddress?: string }[])
      .find((entry) => entry.action === "api.create" && entry.resources.some((r) => r.id === id));
    expect(byApi(created.body.apiId)?.remoteAddress).toBe("127.0.0.1");
    expect(byApi(viaApi.body.data.apiId)?.remoteAddress).toBe("127.0.0.1");
  });

  it("GET / from a browser is sent to the dashboard; API clients keep their JSON 404", async () => {
    const browser = await fetch(`${base()}/`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" }, redirect: "manual" });
    expect([browser.status, browser.headers.get("location")]).toEqual([303, "/dashboard"]);
    expect(browser.headers.get("x-request-id")).toMatch(/^req_/);
    const client = await fetch(`${base()}/`, { headers: { accept: "application/json" } });
    expect(client.status).toBe(404);
    expect(client.headers.get("content-type")).toMatch(/^application\/json/);
    const anything = await fetch(`${base()}/`);
    expect(anything.status).toBe(404);
    const post = await fetch(`${base()}/`, { method: "POST", headers: { accept: "text/html" } });
    expect(post.status).not.toBe(303);
  });
});
