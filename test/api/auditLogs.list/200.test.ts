import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { AuditLogsService } from "../../../gen/keyward/v1/audit_logs_pb.js";
import { JOURNAL_FILE } from "../../../src/store/embedded/journal-file.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("auditLogs.list", () => {
  const harness = useKeyward();
  const list = (body: Record<string, unknown>, rootKey = harness.keyward.rootKey) => harness.rest.v2("auditLogs.list", body, rootKey);

  it("filters by actor, action, resource and time, and pages like every v2 list", async () => {
    const { keyId: actor, key } = await harness.seed.rootKey(["api.*.create_api", "api.*.create_key", "api.*.delete_key"]);
    const t0 = harness.clock.now();
    const apiId = (await harness.rest.v2("apis.createApi", { name: "audit-list" }, key)).body.data.apiId;
    harness.clock.advance(1000);
    const keys: string[] = [];
    for (let i = 0; i < 3; i++) keys.push((await harness.rest.v2("keys.createKey", { apiId }, key)).body.data.keyId);
    harness.clock.advance(1000);
    expect((await harness.rest.v2("keys.deleteKey", { keyId: keys[0] }, key)).status).toBe(200);

    const all = (await list({ actor })).body;
    expect(all.data.map((r: any) => r.action)).toEqual(["api.create", "key.create", "key.create", "key.create", "key.delete"]);
    expect(all.pagination).toEqual({ hasMore: false });
    expect((await list({ actor, actions: ["key.delete", "api.create"] })).body.data.map((r: any) => r.action)).toEqual(["api.create", "key.delete"]);
    expect((await list({ actor, resourceType: "key", resourceId: keys[0] })).body.data.map((r: any) => r.action)).toEqual(["key.create", "key.delete"]);
    expect((await list({ actor, resourceId: apiId })).body.data.map((r: any) => r.action)).toEqual(["api.create"]);
    // Same manual-clock millisecond: the three still list in the order they were made (ids are monotonic).
    expect((await list({ actor, start: t0 + 1000, end: t0 + 2000 })).body.data.map((r: any) => r.resources[0].id)).toEqual(keys);
    expect((await list({ actor: "cli" })).body.data).toEqual([]);

    const first = (await list({ actor, limit: 2 })).body;
    expect(first.data).toHaveLength(2);
    expect(first.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const second = (await list({ actor, limit: 2, cursor: first.pagination.cursor })).body;
    const third = (await list({ actor, limit: 2, cursor: second.pagination.cursor })).body;
    expect([...first.data, ...second.data, ...third.data]).toEqual(all.data);
    expect(third.pagination).toEqual({ hasMore: false });

    // Newest first: the same records reversed, paged the same way, filters and time bounds applying alike.
    const newest = (await list({ actor, order: "newest_first" })).body;
    expect(newest.data).toEqual([...all.data].reverse());
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = (await list({ actor, order: "newest_first", limit: 2, cursor })).body;
      pages.push(...page.data);
      cursor = page.pagination.cursor;
    } while (cursor);
    expect(pages).toEqual(newest.data);
    expect((await list({ actor, order: "newest_first", start: t0 + 1000, end: t0 + 2000 })).body.data.map((r: any) => r.resources[0].id)).toEqual([...keys].reverse());
    expect((await list({ actor, order: "oldest_first" })).body.data).toEqual(all.data);
    const bad = await list({ order: "sideways" });
    expect([bad.status, bad.body.error.detail]).toEqual([400, expect.stringContaining("order")]);
  });

  it("answers the same records over Connect and gRPC", async () => {
    const rest = (await list({ actions: ["api.create"] })).body.data;
    const transports = rpcTransports(harness.keyward.baseUrl);
    for (const transport of [transports.connect, transports.grpc]) {
      const answer = await rpcClient(AuditLogsService, transport).listAuditLogs({ actions: ["api.create"] }, bearer(harness.keyward.rootKey));
      expect(answer.data.map((r) => ({ id: r.id, time: Number(r.time), action: r.action }))).toEqual(rest.map((r: any) => ({ id: r.id, time: r.time, action: r.action })));
    }
  });

  it("records a change made over gRPC and Connect with the caller's address, user agent and request id", async () => {
    const transports = rpcTransports(harness.keyward.baseUrl);
    for (const [name, transport] of [["grpc", transports.grpc], ["connect", transports.connect]] as const) {
      const client = rpcClient(ApisService, transport);
      let requestId: string | null = null;
      const { apiId } = await client.createApi({ name: `via-${name}` }, {
        ...bearer(harness.keyward.rootKey), headers: { ...bearer(harness.keyward.rootKey).headers, "user-agent": `audit-${name}/1` },
        onHeader: (headers) => void (requestId = headers.get("x-request-id")),
      });
      const [record] = (await list({ resourceId: apiId })).body.data;
      expect(record).toMatchObject({
        action: "api.create", requestId, resources: [{ type: "api", id: apiId }], remoteAddress: expect.stringMatching(/127\.0\.0\.1$/),
        userAgent: expect.stringContaining(`audit-${name}/1`),
      });
    }
  });

  it("under 40 concurrent changes each record names its own request's resource, none lost or swapped", async () => {
    const { keyId: actor, key } = await harness.seed.rootKey(["api.*.create_api", "api.*.create_key"]);
    const apiId = (await harness.rest.v2("apis.createApi", { name: "concurrent" }, key)).body.data.apiId;
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      i % 2 ? harness.rest.v2("apis.createApi", { name: `c-${i}` }, key) : harness.rest.v2("keys.createKey", { apiId }, key)));
    const expected = responses.map((r) => [r.headers.get("x-request-id"), r.body.data.keyId ?? r.body.data.apiId]);
    const records = (await list({ actor })).body.data.filter((r: any) => r.resources[0].id !== apiId);
    expect(records.map((r: any) => [r.requestId, r.resources[0].id]).sort()).toEqual(expected.sort());
  });

  it("writes the record in the same journal commit as the change (one line of the embedded journal)", async (ctx) => {
    // On MongoDB documents (the e2e suite's second run) there is no journal: the record follows the change (outbox).
    if (!harness.keyward.stores.describe.startsWith("embedded")) ctx.skip("MongoDB documents: no journal commit to share");
    const apiId = await harness.seed.api({ name: "same-commit" });
    const journal = await readFile(join(harness.keyward.stores.describe.match(/embedded \((.*)\)/)![1], JOURNAL_FILE), "utf8");
    const line = journal.split("\n").find((l) => l.includes(`"id":"${apiId}"`))!;
    const ops = JSON.parse(line).ops as { put: string; doc: { id: string; action?: string } }[];
    expect(ops.map((op) => [op.put, op.doc.action ?? op.doc.id])).toEqual([["apis", apiId], ["audit_logs", "api.create"]]);
  });

  it("another workspace sees none of these records; without workspace.*.read_audit_log it is 403; no root key 401", async () => {
    const other = await harness.seed.workspace("audit-elsewhere");
    const theirs = (await list({}, other.rootKey.key)).body.data;
    expect(theirs.every((r: any) => r.workspaceId === other.workspaceId)).toBe(true);
    expect(theirs.map((r: any) => r.action)).toEqual([]);
    const { key } = await harness.seed.rootKeyWithout("workspace.*.read_audit_log");
    const forbidden = await list({}, key);
    expect([forbidden.status, forbidden.body.error.detail]).toEqual([403, "Missing permission: workspace.*.read_audit_log"]);
    expect((await harness.rest.v2("auditLogs.list", {})).status).toBe(401);
  });

  it("refuses bad input with 400: end before start, a limit of 0, a foreign cursor, an unknown field", async () => {
    for (const body of [{ start: 2000, end: 1000 }, { limit: 0 }, { cursor: "bm90LWEtY3Vyc29y" }, { sql: "SELECT 1" }]) {
      const response = await list(body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
  });
});
