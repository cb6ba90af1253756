import { MongoClient, MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import type { ApiRecord } from "../../src/store/ports/apis.js";
import type { IdentityRecord, KeyRecord } from "../../src/store/ports/key-records.js";
import type { RootKeyRecord } from "../../src/store/ports/root-keys.js";
import {
  clientOptionsFor,
  databaseNameFor,
  redactUrl,
  supportsTransactions,
} from "../../src/store/mongo/connection.js";
import { duplicateKeyTarget, isDuplicateKeyError, isNamespaceExistsError } from "../../src/store/mongo/errors.js";
import {
  anyDocumentQuery,
  byHashFilter,
  byIdFilter,
  byIdInWorkspaceFilter,
  fromDocument,
  fromIdentityDocument,
  keyReplaceFilter,
  keyReplacement,
  keysByApiFilter,
  keysByApiPageQuery,
  keysByIdentityPageQuery,
  keysOfIdentityFilter,
  liveByExternalIdFilter,
  liveByHashFilter,
  liveByIdFilter,
  liveInWorkspaceFilter,
  livePageQuery,
  markDeletedUpdate,
  markIdentityDeletedUpdate,
  pageQuery,
  toDocument,
  toIdentityDocument,
  unlinkIdentityUpdate,
} from "../../src/store/mongo/filters.js";
import { withoutId } from "../../src/store/mongo/scoped.js";
import { collectionNames, documentIndexes } from "../../src/store/mongo/indexes.js";

const rootKey: RootKeyRecord = {
  id: "rk_3ZbX",
  workspaceId: "ws_9Qk",
  hash: "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=",
  start: "kw_abcd",
  permissions: ["api.*.verify_key"],
  createdAt: 1_700_000_000_000,
};

describe("mongo record mapping", () => {
  it("toDocument renames id to _id and keeps every defined field", () => {
    expect(toDocument(rootKey)).toStrictEqual({
      _id: "rk_3ZbX",
      workspaceId: "ws_9Qk",
      hash: "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=",
      start: "kw_abcd",
      permissions: ["api.*.verify_key"],
      createdAt: 1_700_000_000_000,
    });
  });

  it("toDocument omits optional fields that are undefined instead of storing null", () => {
    const api: ApiRecord = {
      id: "api_1",
      workspaceId: "ws_1",
      name: "payments",
      createdAt: 5,
      updatedAt: undefined,
      deleteProtection: false,
      storeEncryptedKeys: true,
      ipWhitelist: undefined,
    };
    const document = toDocument(api);
    expect(document).toStrictEqual({
      _id: "api_1",
      workspaceId: "ws_1",
      name: "payments",
      createdAt: 5,
      deleteProtection: false,
      storeEncryptedKeys: true,
    });
    expect(Object.keys(document)).not.toContain("updatedAt");
    expect(Object.keys(document)).not.toContain("id");
  });

  it("fromDocument renames _id to id, never exposes _id, and drops null fields", () => {
    const record = fromDocument<RootKeyRecord>({
      _id: "rk_1",
      workspaceId: "ws_1",
      hash: "h",
      start: "s",
      permissions: [],
      createdAt: 1,
      name: null as unknown as string,
      deletedAt: 9,
    });
    expect(record).toStrictEqual({
      id: "rk_1",
      workspaceId: "ws_1",
      hash: "h",
      start: "s",
      permissions: [],
      createdAt: 1,
      deletedAt: 9,
    });
    expect(Object.keys(record)).not.toContain("_id");
    expect(Object.keys(record)).not.toContain("name");
  });

  it("fromDocument(toDocument(record)) gives the record back", () => {
    const withOptionals: RootKeyRecord = { ...rootKey, name: "ci", expiresAt: 10, deletedAt: 11 };
    expect(fromDocument<RootKeyRecord>(toDocument(withOptionals))).toStrictEqual(withOptionals);
  });
});

describe("mongo filters and updates", () => {
  it("byIdFilter matches the _id only", () => {
    expect(byIdFilter("ws_1")).toStrictEqual({ _id: "ws_1" });
  });

  it("byHashFilter matches the hash only, deleted or not", () => {
    expect(byHashFilter("abc=")).toStrictEqual({ hash: "abc=" });
  });

  it("liveByIdFilter scopes to the workspace and excludes soft-deleted documents", () => {
    expect(liveByIdFilter("ws_1", "api_1")).toStrictEqual({
      _id: "api_1",
      workspaceId: "ws_1",
      deletedAt: { $exists: false },
    });
  });

  it("markDeletedUpdate sets deletedAt and nothing else", () => {
    expect(markDeletedUpdate(1_700_000_000_123)).toStrictEqual({ $set: { deletedAt: 1_700_000_000_123 } });
  });

  it("livePageQuery without a cursor starts at the first id", () => {
    expect(livePageQuery("ws_1", { limit: 20 })).toStrictEqual({
      filter: { workspaceId: "ws_1", deletedAt: { $exists: false } },
      options: { sort: { _id: 1 }, limit: 20 },
    });
  });

  it("livePageQuery with a cursor asks for ids strictly after it", () => {
    expect(livePageQuery("ws_1", { limit: 2, after: "rk_5" })).toStrictEqual({
      filter: { workspaceId: "ws_1", deletedAt: { $exists: false }, _id: { $gt: "rk_5" } },
      options: { sort: { _id: 1 }, limit: 2 },
    });
  });

  it("livePageQuery with an explicit undefined cursor is the first page", () => {
    expect(livePageQuery("ws_1", { limit: 10, after: undefined })?.filter).toStrictEqual({
      workspaceId: "ws_1",
      deletedAt: { $exists: false },
    });
  });

  it("pageQuery pages a whole collection by _id, without workspace or soft-delete conditions", () => {
    expect(pageQuery({ limit: 2 })).toStrictEqual({ filter: {}, options: { sort: { _id: 1 }, limit: 2 } });
    expect(pageQuery({ limit: 2, after: "ws_0002" })).toStrictEqual({
      filter: { _id: { $gt: "ws_0002" } },
      options: { sort: { _id: 1 }, limit: 2 },
    });
    expect(pageQuery({ limit: 0 })).toBeNull();
  });

  it("livePageQuery is null for limit below 1, which the driver would read as unlimited", () => {
    expect(livePageQuery("ws_1", { limit: 0 })).toBeNull();
    expect(livePageQuery("ws_1", { limit: -3 })).toBeNull();
    expect(livePageQuery("ws_1", { limit: Number.NaN })).toBeNull();
  });

  it("livePageQuery truncates a fractional limit to an integer", () => {
    expect(livePageQuery("ws_1", { limit: 2.7 })?.options).toStrictEqual({ sort: { _id: 1 }, limit: 2 });
  });

  it("anyDocumentQuery matches everything and reads only _id", () => {
    expect(anyDocumentQuery()).toStrictEqual({ filter: {}, options: { projection: { _id: 1 } } });
  });
});

describe("mongo key filters", () => {
  const key: KeyRecord = {
    id: "key_1",
    workspaceId: "ws_1",
    apiId: "api_1",
    hash: "aGFzaA==",
    start: "sk_abcd",
    createdAt: 10,
    enabled: true,
    ratelimits: [],
    permissions: [],
    roles: [],
  };

  it("liveByHashFilter matches the hash of live keys only", () => {
    expect(liveByHashFilter("aGFzaA==")).toStrictEqual({ hash: "aGFzaA==", deletedAt: { $exists: false } });
  });

  it("keyReplaceFilter matches the live key with the same id, workspace, api and hash, at the revision read", () => {
    const named: KeyRecord = { ...key, name: "ignored", revision: 7 };
    expect(keyReplaceFilter(named)).toStrictEqual({
      _id: "key_1",
      workspaceId: "ws_1",
      apiId: "api_1",
      hash: "aGFzaA==",
      deletedAt: { $exists: false },
      revision: 7,
    });
  });

  it("keyReplaceFilter at revision 0 (or none) also matches a document stored without a revision", () => {
    expect(keyReplaceFilter(key).revision).toStrictEqual({ $in: [0, null] });
    expect(keyReplaceFilter({ ...key, revision: 0 }).revision).toStrictEqual({ $in: [0, null] });
  });

  it("keyReplacement stores the next revision, without _id", () => {
    expect(keyReplacement(key)).toStrictEqual({ ...withoutId(toDocument(key)), revision: 1 });
    const replacement = keyReplacement({ ...key, revision: 4, name: undefined });
    expect(replacement).not.toHaveProperty("_id");
    expect(replacement).not.toHaveProperty("name");
    expect(replacement.revision).toBe(5);
  });

  it("the replacement document has no _id, so the matched document keeps its own", () => {
    expect(withoutId(toDocument({ ...key, name: undefined, expires: 99 }))).toStrictEqual({
      workspaceId: "ws_1",
      apiId: "api_1",
      hash: "aGFzaA==",
      start: "sk_abcd",
      createdAt: 10,
      enabled: true,
      ratelimits: [],
      permissions: [],
      roles: [],
      expires: 99,
    });
  });

  it("byIdInWorkspaceFilter matches deleted and live documents of the workspace (erase)", () => {
    expect(byIdInWorkspaceFilter("ws_1", "key_1")).toStrictEqual({ _id: "key_1", workspaceId: "ws_1" });
  });

  it("keysByApiFilter selects live keys of one api, narrowed to an identity only when one is given", () => {
    expect(keysByApiFilter("ws_1", "api_1")).toStrictEqual({ workspaceId: "ws_1", apiId: "api_1", deletedAt: { $exists: false } });
    expect(keysByApiFilter("ws_1", "api_1", undefined)).toStrictEqual({
      workspaceId: "ws_1",
      apiId: "api_1",
      deletedAt: { $exists: false },
    });
    expect(keysByApiFilter("ws_1", "api_1", "id_7")).toStrictEqual({
      workspaceId: "ws_1",
      apiId: "api_1",
      deletedAt: { $exists: false },
      identityId: "id_7",
    });
  });

  it("keysByApiPageQuery pages keysByApiFilter, the filter countByApi counts, by _id", () => {
    expect(keysByApiPageQuery("ws_1", "api_1", { limit: 50 })).toStrictEqual({
      filter: { workspaceId: "ws_1", apiId: "api_1", deletedAt: { $exists: false } },
      options: { sort: { _id: 1 }, limit: 50 },
    });
    expect(keysByApiPageQuery("ws_1", "api_1", { limit: 2, after: "key_9", identityId: "id_7" })).toStrictEqual({
      filter: { workspaceId: "ws_1", apiId: "api_1", deletedAt: { $exists: false }, identityId: "id_7", _id: { $gt: "key_9" } },
      options: { sort: { _id: 1 }, limit: 2 },
    });
    expect(keysByApiPageQuery("ws_1", "api_1", { limit: 0 })).toBeNull();
    // `deleted`: the soft-deleted keys instead (a permanent apis.deleteKeys erases them too).
    expect(keysByApiPageQuery("ws_1", "api_1", { limit: 3, after: "key_2", deleted: true })).toStrictEqual({
      filter: { workspaceId: "ws_1", apiId: "api_1", deletedAt: { $exists: true }, _id: { $gt: "key_2" } },
      options: { sort: { _id: 1 }, limit: 3 },
    });
    // The live filter is not changed by a deleted page built from it.
    expect(keysByApiFilter("ws_1", "api_1").deletedAt).toStrictEqual({ $exists: false });
  });

  it("keysByIdentityPageQuery pages the live keys of one identity by _id", () => {
    expect(keysByIdentityPageQuery("ws_1", "id_7", { limit: 100, after: "key_3" })).toStrictEqual({
      filter: { workspaceId: "ws_1", identityId: "id_7", deletedAt: { $exists: false }, _id: { $gt: "key_3" } },
      options: { sort: { _id: 1 }, limit: 100 },
    });
    expect(keysByIdentityPageQuery("ws_1", "id_7", { limit: -1 })).toBeNull();
  });
});

describe("mongo identity filters and mapping", () => {
  const identity: IdentityRecord = { id: "id_1", workspaceId: "ws_1", externalId: "user_1", ratelimits: [], createdAt: 10 };

  it("toIdentityDocument marks a live identity with live: true, which the partial unique index covers", () => {
    expect(toIdentityDocument({ ...identity, meta: undefined })).toStrictEqual({
      _id: "id_1",
      workspaceId: "ws_1",
      externalId: "user_1",
      ratelimits: [],
      createdAt: 10,
      live: true,
    });
  });

  it("toIdentityDocument leaves live off a deleted identity, freeing its external id", () => {
    expect(toIdentityDocument({ ...identity, deletedAt: 20 })).toStrictEqual({
      _id: "id_1",
      workspaceId: "ws_1",
      externalId: "user_1",
      ratelimits: [],
      createdAt: 10,
      deletedAt: 20,
    });
  });

  it("fromIdentityDocument drops the live marker and gives the record back exactly", () => {
    const withMeta: IdentityRecord = { ...identity, meta: { a: 1 }, updatedAt: 11 };
    const record = fromIdentityDocument<IdentityRecord>(toIdentityDocument(withMeta));
    expect(record).toStrictEqual(withMeta);
    expect(Object.keys(record)).not.toContain("live");
    expect(fromIdentityDocument<IdentityRecord>(toIdentityDocument({ ...identity, deletedAt: 20 }))).toStrictEqual({
      ...identity,
      deletedAt: 20,
    });
  });

  it("liveByExternalIdFilter names the partial index condition so the server can use that index", () => {
    expect(liveByExternalIdFilter("ws_1", "user_1")).toStrictEqual({ workspaceId: "ws_1", externalId: "user_1", live: true });
  });

  it("markIdentityDeletedUpdate sets deletedAt and unsets live in one update", () => {
    expect(markIdentityDeletedUpdate(30)).toStrictEqual({ $set: { deletedAt: 30 }, $unset: { live: "" } });
  });

  it("an identity delete unlinks the live keys of that identity in its workspace, each as an edit at a new revision", () => {
    expect(keysOfIdentityFilter("ws_1", "id_1")).toStrictEqual({ workspaceId: "ws_1", identityId: "id_1", deletedAt: { $exists: false } });
    // $inc of a missing revision stores 1: a key stored before revisions existed was at 0.
    expect(unlinkIdentityUpdate(30)).toStrictEqual({ $unset: { identityId: "" }, $set: { updatedAt: 30 }, $inc: { revision: 1 } });
  });

  it("liveInWorkspaceFilter is what identities count, and livePageQuery pages", () => {
    expect(liveInWorkspaceFilter("ws_1")).toStrictEqual({ workspaceId: "ws_1", deletedAt: { $exists: false } });
    expect(livePageQuery("ws_1", { limit: 5 })?.filter).toStrictEqual(liveInWorkspaceFilter("ws_1"));
  });
});

describe("mongo indexes", () => {
  it("names the collections", () => {
    expect(collectionNames).toMatchObject({
      workspaces: "workspaces",
      rootKeys: "root_keys",
      apis: "apis",
      keys: "keys",
      identities: "identities",
      permissions: "permissions",
      roles: "roles",
    });
  });

  it("declares every collection with explicitly named indexes", () => {
    expect(documentIndexes()).toEqual(expect.arrayContaining([
      { collection: "workspaces", indexes: [] },
      {
        collection: "root_keys",
        indexes: [
          { name: "hash", key: { hash: 1 }, unique: true },
          { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
        ],
      },
      { collection: "apis", indexes: [{ name: "workspace_id", key: { workspaceId: 1, _id: 1 } }] },
      {
        collection: "keys",
        indexes: [
          { name: "hash", key: { hash: 1 }, unique: true },
          { name: "workspace_api_id", key: { workspaceId: 1, apiId: 1, _id: 1 } },
          { name: "workspace_identity_id", key: { workspaceId: 1, identityId: 1, _id: 1 } },
          { name: "workspace_permissions", key: { workspaceId: 1, permissions: 1 } },
          { name: "workspace_roles", key: { workspaceId: 1, roles: 1 } },
          { name: "expires", key: { expires: 1 }, partialFilterExpression: { expires: { $exists: true } } },
        ],
      },
      {
        collection: "identities",
        indexes: [
          {
            name: "workspace_external_id_live",
            key: { workspaceId: 1, externalId: 1 },
            unique: true,
            partialFilterExpression: { live: true },
          },
          { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
        ],
      },
      {
        collection: "permissions",
        indexes: [
          { name: "workspace_slug", key: { workspaceId: 1, slug: 1 }, unique: true },
          { name: "workspace_name", key: { workspaceId: 1, name: 1 }, unique: true },
          { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
        ],
      },
      {
        collection: "roles",
        indexes: [
          { name: "workspace_name", key: { workspaceId: 1, name: 1 }, unique: true },
          { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
          { name: "workspace_permissions", key: { workspaceId: 1, permissions: 1 } },
        ],
      },
      { collection: "webhooks", indexes: [{ name: "workspace_id", key: { workspaceId: 1, _id: 1 } }] },
      {
        collection: "webhook_messages",
        indexes: [
          { name: "status_next_attempt", key: { status: 1, nextAttemptAt: 1 } },
          { name: "webhook_id", key: { webhookId: 1, _id: -1 } },
          { name: "finished_at", key: { finishedAt: 1 }, partialFilterExpression: { finishedAt: { $exists: true } } },
        ],
      },
      { collection: "webhook_state", indexes: [] },
    ]));
    for (const { indexes } of documentIndexes()) for (const index of indexes) expect(index.name).toMatch(/^[a-z_]+$/);
    expect(documentIndexes().map((c) => c.collection)).toEqual(Object.values(collectionNames));
  });

  it("the key order of each compound index is equality fields first, then _id where it pages (object key order is the index order)", () => {
    const keys = documentIndexes().find((c) => c.collection === "keys")!;
    expect(keys.indexes.map((i) => Object.keys(i.key))).toStrictEqual([
      ["hash"],
      ["workspaceId", "apiId", "_id"],
      ["workspaceId", "identityId", "_id"],
      ["workspaceId", "permissions"],
      ["workspaceId", "roles"],
      ["expires"],
    ]);
  });
});

describe("mongo error classification", () => {
  const duplicateHash = new MongoServerError({
    ok: 0,
    code: 11000,
    codeName: "DuplicateKey",
    errmsg: 'E11000 duplicate key error collection: kw_test.root_keys index: hash dup key: { hash: "c2VjcmV0" }',
    keyPattern: { hash: 1 },
    keyValue: { hash: "c2VjcmV0" },
  });

  it("isDuplicateKeyError is true for code 11000 only", () => {
    expect(isDuplicateKeyError(duplicateHash)).toBe(true);
    expect(isDuplicateKeyError(new MongoServerError({ ok: 0, code: 48, errmsg: "exists" }))).toBe(false);
    expect(isDuplicateKeyError(new Error("E11000"))).toBe(false);
    expect(isDuplicateKeyError(undefined)).toBe(false);
  });

  it("isNamespaceExistsError is true for code 48 only", () => {
    expect(isNamespaceExistsError(new MongoServerError({ ok: 0, code: 48, errmsg: "Collection already exists" }))).toBe(true);
    expect(isNamespaceExistsError(duplicateHash)).toBe(false);
    expect(isNamespaceExistsError("48")).toBe(false);
  });

  it("duplicateKeyTarget reads collection from the message and fields from keyPattern, never the value", () => {
    const target = duplicateKeyTarget(duplicateHash, "workspaces");
    expect(target).toStrictEqual({ collection: "root_keys", index: "hash" });
    expect(JSON.stringify(target)).not.toContain("c2VjcmV0");
  });

  it("duplicateKeyTarget reports the primary key as id", () => {
    const duplicateId = new MongoServerError({
      ok: 0,
      code: 11000,
      errmsg: 'E11000 duplicate key error collection: kw.apis index: _id_ dup key: { _id: "api_1" }',
      keyPattern: { _id: 1 },
    });
    expect(duplicateKeyTarget(duplicateId, "workspaces")).toStrictEqual({ collection: "apis", index: "id" });
  });

  it("duplicateKeyTarget falls back to the index name, then to the given collection", () => {
    const noPattern = new MongoServerError({
      ok: 0,
      code: 11000,
      errmsg: "E11000 duplicate key error collection: kw.root_keys index: _id_ dup key: { _id: \"rk\" }",
    });
    expect(duplicateKeyTarget(noPattern, "workspaces")).toStrictEqual({ collection: "root_keys", index: "id" });
    expect(duplicateKeyTarget({ code: 11000 }, "apis")).toStrictEqual({ collection: "apis", index: "unknown" });
  });
});

describe("mongo connection helpers", () => {
  it("clientOptionsFor bounds every operation and writes majority+journal by default", () => {
    expect(clientOptionsFor("mongodb://db:27017/keyward")).toStrictEqual({
      appName: "keyward",
      serverSelectionTimeoutMS: 5000,
      timeoutMS: 10_000,
      w: "majority",
      journal: true,
    });
  });

  it("clientOptionsFor leaves options the URL sets (any case) to the URL and keeps every other default", () => {
    expect(clientOptionsFor("mongodb://a:1,b:2/?replicaSet=rs0&SERVERSELECTIONTIMEOUTMS=200&w=1&timeoutMS=300")).toStrictEqual({
      appName: "keyward",
      journal: true,
    });
    expect(clientOptionsFor("mongodb+srv://u:p@cluster.example/?appName=ops&journal=true")).toStrictEqual({
      serverSelectionTimeoutMS: 5000,
      timeoutMS: 10_000,
      w: "majority",
    });
  });

  it("clientOptionsFor keeps majority+journal when the URL only sets wtimeoutMS, and bounds the legacy model", () => {
    // The driver discards wtimeoutMS under timeoutMS, so naming it chooses the legacy timeouts.
    expect(clientOptionsFor("mongodb://db:27017/kw?wtimeoutMS=2000")).toStrictEqual({
      appName: "keyward",
      serverSelectionTimeoutMS: 5000,
      socketTimeoutMS: 10_000,
      w: "majority",
      journal: true,
    });
    expect(clientOptionsFor("mongodb://db:27017/kw?socketTimeoutMS=100")).toMatchObject({ wtimeoutMS: 5000, w: "majority", journal: true });
    expect(clientOptionsFor("mongodb://db:27017/kw?socketTimeoutMS=100")).not.toHaveProperty("timeoutMS");
  });

  it("the driver merges the defaults with the URL's write concern options", () => {
    const url = "mongodb://db:27017/kw?wtimeoutMS=2000";
    const client = new MongoClient(url, clientOptionsFor(url));
    expect(client.options.writeConcern).toMatchObject({ w: "majority", journal: true, wtimeoutMS: 2000 });
    const bounded = "mongodb://db:27017/kw?w=1";
    expect(new MongoClient(bounded, clientOptionsFor(bounded)).options).toMatchObject({ timeoutMS: 10_000, writeConcern: { w: 1, journal: true } });
  });

  it("databaseNameFor takes the URL path, else keyward", () => {
    expect(databaseNameFor("mongodb://db:27017/prod?replicaSet=rs0")).toBe("prod");
    expect(databaseNameFor("mongodb://u:p@a:1,b:2/my%2Ddb")).toBe("my-db");
    expect(databaseNameFor("mongodb://db:27017/")).toBe("keyward");
    expect(databaseNameFor("mongodb://db:27017")).toBe("keyward");
    expect(databaseNameFor("mongodb://db:27017/?w=1")).toBe("keyward");
  });

  it("redactUrl hides credentials and keeps hosts, path and options", () => {
    expect(redactUrl("mongodb://admin:s3cr%40t@a:1,b:2/kw?authSource=admin")).toBe("mongodb://***@a:1,b:2/kw?authSource=admin");
    expect(redactUrl("mongodb+srv://u:p@cluster.example/")).toBe("mongodb+srv://***@cluster.example/");
    expect(redactUrl("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300")).toBe(
      "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300",
    );
  });

  it("supportsTransactions is true for replica-set members and mongos, false for a standalone", () => {
    expect(supportsTransactions({ isWritablePrimary: true, setName: "rs0", logicalSessionTimeoutMinutes: 30 })).toBe(true);
    expect(supportsTransactions({ isWritablePrimary: true, msg: "isdbgrid", logicalSessionTimeoutMinutes: 30 })).toBe(true);
    expect(supportsTransactions({ isWritablePrimary: true, logicalSessionTimeoutMinutes: 30 })).toBe(false);
    expect(supportsTransactions({ isWritablePrimary: true, setName: "rs0" })).toBe(false);
  });
});
