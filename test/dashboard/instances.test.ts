import { describe, expect, it } from "vitest";
import { dashboardRpc, dashboardSessionStatus, dashboardSignIn } from "../support/dashboard.js";
import { manualClock } from "../support/keyward.js";
import { useTwoInstances } from "../support/second-instance.js";

/** Two replicas on one document store and one Redis: a session is served by either and ends on both. */
describe("dashboard sessions across instances", () => {
  const clock = manualClock(Date.UTC(2030, 0, 1));
  const pair = useTwoInstances(clock);

  /** Asks B until it answers `status`; the bound only stops a test that would never pass. */
  async function eventuallyOnB(token: string, status: number): Promise<void> {
    const started = Date.now();
    let last = 0;
    while (Date.now() - started < 10_000) {
      last = await dashboardSessionStatus(pair.b.baseUrl, token);
      if (last === status) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`instance B still answered ${last}, not ${status}`);
  }

  it("a session opened on A works on B, and signing out on A ends it on B once told through Redis", async () => {
    const session = await dashboardSignIn(pair.a.baseUrl, pair.a.rootKey);
    const onB = await dashboardRpc(pair.b.baseUrl, session, "keyward.v1.ApisService/CreateApi", { name: "made-on-b" });
    expect(onB.status).toBe(200);
    expect(await dashboardSessionStatus(pair.b.baseUrl, session.token)).toBe(200); // now cached on B
    const out = await fetch(`${pair.a.baseUrl}/dashboard/api/sign-out`, {
      method: "POST",
      headers: { cookie: `kw_dashboard_session=${session.token}`, "x-keyward-csrf": session.csrf },
    });
    expect(out.status).toBe(200);
    expect(await dashboardSessionStatus(pair.a.baseUrl, session.token)).toBe(401);
    await eventuallyOnB(session.token, 401);
  });

  it("revoking the root key on A ends its session on B once told through Redis", async () => {
    const created = await fetch(`${pair.a.baseUrl}/v2/rootKeys.createRootKey`, {
      method: "POST",
      headers: { authorization: `Bearer ${pair.a.rootKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "revoked-across", permissions: ["api.*.create_api"] }),
    });
    const { keyId, key } = ((await created.json()) as { data: { keyId: string; key: string } }).data;
    const session = await dashboardSignIn(pair.b.baseUrl, key);
    expect(await dashboardSessionStatus(pair.b.baseUrl, session.token)).toBe(200);
    const revoked = await fetch(`${pair.a.baseUrl}/v2/rootKeys.deleteRootKey`, {
      method: "POST",
      headers: { authorization: `Bearer ${pair.a.rootKey}`, "content-type": "application/json" },
      body: JSON.stringify({ keyId }),
    });
    expect(revoked.status).toBe(200);
    expect(await dashboardSessionStatus(pair.a.baseUrl, session.token)).toBe(401);
    await eventuallyOnB(session.token, 401);
    const call = await dashboardRpc(pair.b.baseUrl, session, "keyward.v1.ApisService/CreateApi", { name: "after-revoke" });
    expect([call.status, call.body.code]).toEqual([401, "unauthenticated"]);
  });
});
