import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { MongoClient } from "mongodb";
import { afterAll, describe, expect, it } from "vitest";
import { createMongoDocumentStore } from "../../src/store/mongo/documents.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import { StoreUnavailableError } from "../../src/store/errors.js";
import { emulatorGap, mongo, withDatabase } from "../support/mongo.js";
import { runDocumentStoreContract } from "./documents.contract.js";

// MONGODB_URL names a real server; without it test/setup/mongo.ts starts the wire emulator, standalone and posing as
// a replica set (transactions). The adapter's filters, updates and index specs are also checked without a server in
// mongo-filters.test.ts.
const deployments = [
  { label: "mongo", url: mongo.url, gaps: {} },
  // The emulator runs the transaction but cannot roll an aborted one back.
  { label: "mongo (replica-set emulator)", url: mongo.replicaSetUrl, gaps: { rollback: emulatorGap.rollback } },
].filter((deployment) => deployment.url !== undefined || deployment.label === "mongo");

for (const deployment of deployments) {
  (deployment.url ? describe : describe.skip)(`${deployment.label} document store contract${mongo.skip}`, () => {
    // Every open() gets its own database, so contract cases never see each other's documents.
    const runPrefix = `keyward_test_${randomUUID().slice(0, 8)}`;
    const databases: string[] = [];

    afterAll(async () => {
      const admin = new MongoClient(deployment.url!, { serverSelectionTimeoutMS: 5000 });
      try {
        for (const name of databases) await admin.db(name).dropDatabase();
      } finally {
        await admin.close();
      }
    });

    async function open(): Promise<DocumentStore> {
      const dbName = `${runPrefix}_${databases.length + 1}`;
      databases.push(dbName);
      return createMongoDocumentStore({ url: deployment.url!, dbName });
    }

    runDocumentStoreContract(deployment.label, open, { gaps: deployment.gaps });
  });
}

(mongo.url ? describe : describe.skip)(`mongo write concern${mongo.skip}`, () => {
  // A real replica set waits for acknowledgements it cannot get and the write concern fails within the bound; the
  // emulator acknowledges every write at once, and a real standalone refuses w > 1 outright.
  it.skipIf(mongo.emulator)(`a write concern that cannot be met answers StoreUnavailableError within timeoutMS${mongo.emulator ? ` [skipped: ${emulatorGap.writeConcern}]` : ""}`, async (context) => {
    const url = withDatabase(mongo.url!, `keyward_wc_${randomUUID().slice(0, 8)}`);
    const client = await new MongoClient(url).connect();
    const hello = await client.db().command({ hello: 1 });
    if (typeof hello.setName !== "string") {
      await client.close();
      context.skip("a standalone server refuses w > 1 outright; the case needs a replica set");
    }
    const store = await createMongoDocumentStore({ url: `${url}${url.includes("?") ? "&" : "?"}w=50&timeoutMS=1500` });
    try {
      const started = Date.now();
      const error = await store.apis.insert({ id: "api_1", workspaceId: "ws_1", name: "a", createdAt: 1, deleteProtection: false, storeEncryptedKeys: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      await store.close();
      await client.db().dropDatabase();
      await client.close();
    }
  });
});

describe("mongo document store without a server", () => {
  it("importing the adapter opens nothing: a fresh process imports it and exits on its own", async () => {
    const script = [
      // Only what the import adds counts: on Node 24, tsx's loader itself holds a pipe connection and immediates.
      "const before = process.getActiveResourcesInfo();",
      'const m = await import("./src/store/mongo/documents.js");',
      // stdout/stderr are pipes (or a TTY); anything else (socket, timer, DNS lookup) would come from the driver.
      "const handles = process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap');",
      "for (const r of before) if (handles.includes(r)) handles.splice(handles.indexOf(r), 1);",
      "console.log(JSON.stringify({ exported: typeof m.createMongoDocumentStore, handles }));",
    ].join("\n");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: new URL("../..", import.meta.url), timeout: 20_000 },
    );
    expect(JSON.parse(stdout)).toStrictEqual({ exported: "function", handles: [] });
  });

  it("rejects with a clear, credential-free error when nothing listens at the URL", async () => {
    const started = Date.now();
    const attempt = createMongoDocumentStore({
      url: "mongodb://keyward:hunter2@127.0.0.1:1/?serverSelectionTimeoutMS=300",
    });
    const error = await attempt.then(
      () => expect.unreachable("connected to port 1"),
      (reason: unknown) => reason as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(
      /^cannot connect to MongoDB at mongodb:\/\/\*\*\*@127\.0\.0\.1:1\/\?serverSelectionTimeoutMS=300: .*ECONNREFUSED 127\.0\.0\.1:1/,
    );
    expect(error.message).not.toContain("hunter2");
    expect((error.cause as Error).name).toBe("MongoServerSelectionError");
    // The URL's serverSelectionTimeoutMS wins over the 5 s default.
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("rejects a connection string that is not a MongoDB URL before any I/O", async () => {
    await expect(createMongoDocumentStore({ url: "http://127.0.0.1:1/" })).rejects.toThrow(/Invalid scheme/);
  });
});
