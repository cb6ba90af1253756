import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { bootstrap } from "../../src/bootstrap.js";
import { openStores } from "../../src/open-stores.js";
import { MongoClient } from "mongodb";
import { createMongoAuditLogStore } from "../../src/store/mongo/audit-logs.js";
import { listen } from "../../src/transport/server.js";
import { restClient } from "../support/rest.js";

const mongoUrl = process.env.MONGODB_URL;
const skipReason = mongoUrl ? "" : " [skipped: MONGODB_URL is unset and no MongoDB server runs here]";

(mongoUrl ? describe : describe.skip)(`audit log on MongoDB${skipReason}`, () => {
  it("a change through the API is recorded right after it (no outbox needed while MongoDB answers) and listed", async () => {
    const url = new URL(mongoUrl!);
    url.pathname = `/keyward_audit_${randomUUID().slice(0, 8)}`;
    const dir = await mkdtemp(join(tmpdir(), "keyward-audit-mongo-"));
    const stores = await openStores({ dataDir: dir, mongodbUrl: url.toString() });
    const rootKey = `kw_test_${randomBytes(12).toString("hex")}`;
    try {
      await bootstrap({ documents: stores.documents, clock: { now: () => Date.now() }, randomBytes: (n) => new Uint8Array(randomBytes(n)), rootKey, print: () => {} });
      const app = createApp({ ...stores });
      const server = await listen(app, { port: 0, host: "127.0.0.1" });
      try {
        const rest = restClient(`http://127.0.0.1:${server.port}`);
        const created = await rest.v2("apis.createApi", { name: "audited-on-mongo" }, rootKey);
        expect(created.status).toBe(200);
        const listed = await rest.v2("auditLogs.list", { actions: ["api.create"] }, rootKey);
        expect(listed.status).toBe(200);
        expect(listed.body.data).toEqual([expect.objectContaining({
          action: "api.create", requestId: created.headers.get("x-request-id"), resources: [{ type: "api", id: created.body.data.apiId }],
        })]);
        expect(stores.auditLogs?.stats()).toMatchObject({ written: 1, queued: 0, dropped: 0 });
      } finally {
        await server.close();
        await app.stop();
      }
    } finally {
      await stores.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a record MongoDB refuses waits in the outbox, counted, and is written once MongoDB answers again", async () => {
    const client = await new MongoClient(mongoUrl!, { serverSelectionTimeoutMS: 2000 }).connect();
    const db = client.db(`keyward_outbox_${randomUUID().slice(0, 8)}`);
    const lines: string[] = [];
    const store = await createMongoAuditLogStore({ db, log: (line) => lines.push(line) });
    const record = { id: "log_outbox1", time: 1, workspaceId: "ws_A", actor: "cli", action: "api.create", resources: [{ type: "api", id: "api_1" }] };
    try {
      await client.close();
      await store.append(record); // refused: the client is closed; queued, not thrown
      expect(store.stats()).toMatchObject({ written: 0, queued: 1, failedWrites: 1, dropped: 0 });
      await client.connect();
      const deadline = Date.now() + 10_000;
      while (store.stats().queued > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(store.stats()).toMatchObject({ written: 1, queued: 0, dropped: 0 });
      expect(await store.list({ workspaceId: "ws_A" }, { limit: 10 })).toEqual([record]);
      expect(lines).toEqual([]);
    } finally {
      await store.close();
      await db.dropDatabase().catch(() => {});
      await client.close();
    }
  });
  it("appendMany stores many records in one insertMany; one already stored (a retry) counts as stored, the rest follow it", async () => {
    const client = await new MongoClient(mongoUrl!, { serverSelectionTimeoutMS: 2000 }).connect();
    const db = client.db(`keyward_many_${randomUUID().slice(0, 8)}`);
    const store = await createMongoAuditLogStore({ db });
    const record = (n: number) => ({ id: `log_many${n}`, time: n, workspaceId: "ws_A", actor: "cli", action: "key.create", resources: [{ type: "key", id: `key_${n}` }] });
    try {
      await store.appendMany([record(1), record(2)]);
      await store.appendMany([record(3), record(2), record(4)]);
      expect(store.stats()).toMatchObject({ queued: 0, dropped: 0 });
      expect((await store.list({ workspaceId: "ws_A" }, { limit: 10 })).map((r) => r.id)).toEqual(["log_many1", "log_many2", "log_many3", "log_many4"]);
    } finally {
      await store.close();
      await db.dropDatabase().catch(() => {});
      await client.close();
    }
  });
});
