import { getOption } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import { IdentitiesService } from "../../gen/keyward/v1/identities_pb.js";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import { access } from "../../gen/keyward/v1/options_pb.js";
import { PermissionsService } from "../../gen/keyward/v1/permissions_pb.js";
import { RatelimitService } from "../../gen/keyward/v1/ratelimits_pb.js";
import { RootKeysService } from "../../gen/keyward/v1/root_keys_pb.js";
import { WorkspacesService } from "../../gen/keyward/v1/workspaces_pb.js";
import { hashKey } from "../../src/domain/key-material.js";
import { SESSION_TTL_MS } from "../../src/dashboard/sessions.js";
import { dashboardRpc, dashboardSessionStatus, dashboardSignIn } from "../support/dashboard.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const base = () => h.keyward.baseUrl;

describe("dashboard sessions", () => {
  it("sign-in sets an HttpOnly, SameSite=Strict cookie scoped to /dashboard, and answers no secret", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    expect(session.setCookie).toBe(`kw_dashboard_session=${session.token}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=3600`);
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const text = JSON.stringify(session.body);
    expect(text).not.toContain(h.keyward.rootKey);
    expect(text).not.toContain(session.token);
    expect(session.body).toMatchObject({ workspaceId: h.keyward.workspaceId, expiresAt: h.clock.now() + SESSION_TTL_MS, rootKeyName: "KEYWARD_ROOT_KEY" });
    // Only the token's hash is stored; the record names the root key by its hash.
    const record = await h.keyward.documents.dashboardSessions.findByHash(hashKey(session.token));
    expect(record).toMatchObject({ hash: hashKey(session.token), rootKeyHash: hashKey(h.keyward.rootKey), workspaceId: h.keyward.workspaceId });
    expect(JSON.stringify(record)).not.toContain(session.token);
  });

  it("a wrong root key, a missing body or a missing CSRF header opens no session", async () => {
    const post = (body: string, headers: Record<string, string>) =>
      fetch(`${base()}/dashboard/api/sign-in`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    const wrong = await post(JSON.stringify({ rootKey: "kw_wrong_key_1234567" }), { "x-keyward-csrf": "1" });
    expect([wrong.status, wrong.headers.get("set-cookie"), (await wrong.json()).error.code]).toEqual([401, null, "unauthenticated"]);
    const empty = await post("{}", { "x-keyward-csrf": "1" });
    expect([empty.status, (await empty.json()).error.message]).toEqual([400, "rootKey is required."]);
    const noHeader = await post(JSON.stringify({ rootKey: h.keyward.rootKey }), {});
    expect([noHeader.status, noHeader.headers.get("set-cookie")]).toEqual([403, null]);
    const foreign = await post(JSON.stringify({ rootKey: h.keyward.rootKey }), { "x-keyward-csrf": "1", origin: "https://evil.example" });
    expect([foreign.status, foreign.headers.get("set-cookie")]).toEqual([403, null]);
    const text = JSON.stringify(await noHeader.json());
    expect(text).not.toContain(h.keyward.rootKey);
  });

  it("a session does what its root key may, through the API's own operations", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    const created = await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", { name: "from-dashboard" });
    expect(created.status).toBe(200);
    const apiId = created.body.apiId as string;
    const read = await h.rest.v2("apis.getApi", { apiId }, h.keyward.rootKey);
    expect(read.body.data).toMatchObject({ id: apiId, name: "from-dashboard" });
    // Validation runs as on every transport.
    const bad = await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", { name: "x" });
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_argument"]);
  });

  it("an expired session is refused", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    h.clock.advance(SESSION_TTL_MS - 1);
    expect(await dashboardSessionStatus(base(), session.token)).toBe(200);
    h.clock.advance(1);
    expect(await dashboardSessionStatus(base(), session.token)).toBe(401);
    const call = await dashboardRpc(base(), session, "keyward.v1.RootKeysService/ListRootKeys", {});
    expect([call.status, call.body.code, call.body.message]).toEqual([401, "unauthenticated", "The dashboard session has ended; sign in again."]);
  });

  it("sign-out ends the session: the old cookie is refused and cleared", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    const out = await fetch(`${base()}/dashboard/api/sign-out`, {
      method: "POST",
      headers: { cookie: `kw_dashboard_session=${session.token}`, "x-keyward-csrf": session.csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toBe("kw_dashboard_session=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0");
    expect(await dashboardSessionStatus(base(), session.token)).toBe(401);
    expect((await dashboardRpc(base(), session, "keyward.v1.RootKeysService/ListRootKeys", {})).status).toBe(401);
    expect(await h.keyward.documents.dashboardSessions.findByHash(hashKey(session.token))).toBeUndefined();
  });

  it("revoking the root key ends its sessions at once", async () => {
    const { keyId, key } = await h.seed.rootKey(["api.*.create_api", "api.*.read_api"], { name: "to-revoke" });
    const session = await dashboardSignIn(base(), key);
    expect((await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", { name: "before-revoke" })).status).toBe(200);
    expect((await h.rest.v2("rootKeys.deleteRootKey", { keyId }, h.keyward.rootKey)).status).toBe(200);
    const after = await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", { name: "after-revoke" });
    expect([after.status, after.body.code, after.body.message]).toEqual([401, "unauthenticated", "The root key is unknown or revoked."]);
    expect(await dashboardSessionStatus(base(), session.token)).toBe(401);
  });
});

describe("dashboard CSRF and origin checks", () => {
  const create = { name: "csrf-target" };

  it.each([
    ["no CSRF header", { "x-keyward-csrf": undefined }, "The x-keyward-csrf header is missing."],
    ["a CSRF header of another session", { "x-keyward-csrf": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }, "The x-keyward-csrf header does not match the session."],
    ["a foreign Origin", { origin: "https://evil.example" }, "Requests from another origin are refused."],
    ["a malformed Origin", { origin: "null" }, "Requests from another origin are refused."],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }, "Cross-site requests are refused (Sec-Fetch-Site: cross-site)."],
  ])("a state-changing call with %s is refused with 403 and changes nothing", async (_name, headers, message) => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    h.writes.clear();
    const refused = await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", create, headers);
    expect([refused.status, refused.body]).toEqual([403, { code: "permission_denied", message }]);
    expect(h.writes.writes).toEqual([]);
  });

  it("the same call from the dashboard's own origin passes", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    const ok = await dashboardRpc(base(), session, "keyward.v1.ApisService/CreateApi", create, { origin: base(), "sec-fetch-site": "same-origin" });
    expect(ok.status).toBe(200);
  });

  it("sign-out from a foreign origin or without the CSRF token is refused and the session lives on", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    const attempts: Record<string, string>[] = [{ origin: "https://evil.example", "x-keyward-csrf": session.csrf }, {}];
    for (const headers of attempts) {
      const res = await fetch(`${base()}/dashboard/api/sign-out`, {
        method: "POST",
        headers: { cookie: `kw_dashboard_session=${session.token}`, ...headers },
      });
      expect([res.status, res.headers.get("set-cookie")]).toEqual([403, null]);
    }
    expect(await dashboardSessionStatus(base(), session.token)).toBe(200);
  });

  it("a call without a session is 401 and a bearer header does not stand in for one", async () => {
    const res = await dashboardRpc(base(), undefined, "keyward.v1.ApisService/CreateApi", create, { authorization: `Bearer ${h.keyward.rootKey}` });
    expect([res.status, res.body.code]).toEqual([401, "unauthenticated"]);
  });
});

describe("dashboard secrets", () => {
  it("no response carries the root key or the session token; only createRootKey shows its new key, once", async () => {
    const session = await dashboardSignIn(base(), h.keyward.rootKey);
    const page = await fetch(`${base()}/dashboard`);
    const described = await fetch(`${base()}/dashboard/api/session`, { headers: { cookie: `kw_dashboard_session=${session.token}` } });
    const created = await dashboardRpc(base(), session, "keyward.v1.RootKeysService/CreateRootKey", { name: "shown-once", permissions: ["api.*.read_api"] });
    const listed = await dashboardRpc(base(), session, "keyward.v1.RootKeysService/ListRootKeys", {});
    const texts = [await page.text(), await described.text(), JSON.stringify(session.body), listed.text];
    for (const text of texts) {
      expect(text).not.toContain(h.keyward.rootKey);
      expect(text).not.toContain(session.token);
      expect(text).not.toContain(created.body.key);
    }
    expect(created.text).toContain(created.body.key);
    expect(created.text).not.toContain(h.keyward.rootKey);
    expect(described.headers.get("cache-control")).toBe("no-store");
  });

  it("the page is served with a strict content security policy and no framing", async () => {
    const page = await fetch(`${base()}/dashboard`);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(await page.text()).toContain('<script type="module" src="/dashboard/assets/app.js"></script>');
  });
});

describe("a session whose root key holds no permission", () => {
  const services = [ApisService, KeysService, IdentitiesService, PermissionsService, RatelimitService, RootKeysService, WorkspacesService];

  it("can do nothing through the dashboard: every non-public operation answers 403 and nothing is written", async () => {
    // The API refuses a root key with no permission; one is put into the store directly.
    const bootstrap = await h.keyward.documents.rootKeys.findByHash(hashKey(h.keyward.rootKey));
    const key = "kw_no_permissions_at_all_1234";
    await h.keyward.documents.rootKeys.insert({
      ...bootstrap!, id: `${bootstrap!.id}n`, name: "nothing", hash: hashKey(key), start: key.slice(0, 8), permissions: [], createdAt: h.clock.now(),
    });
    const session = await dashboardSignIn(base(), key);
    expect(session.body.permissions).toEqual([]);
    h.writes.clear();
    let refused = 0;
    for (const service of services) {
      for (const method of service.methods) {
        if (getOption(method, access).public) continue;
        const res = await dashboardRpc(base(), session, `${service.typeName}/${method.name}`, {});
        expect({ method: method.name, status: res.status, code: res.body.code }).toEqual({ method: method.name, status: 403, code: "permission_denied" });
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(35);
    expect(h.writes.writes).toEqual([]);
  });
});
