import { MongoBulkWriteError, MongoNetworkError, MongoServerError, MongoServerSelectionError } from "mongodb";
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/store/errors.js";
import { duplicateKeyTarget } from "../../src/store/mongo/errors.js";
import { refusedDocuments } from "../../src/store/mongo/events.js";
import { isOutageError, translateOutage, withOutagesTranslated } from "../../src/store/mongo/outage.js";

/** A bulk write failed by a connection error, as driver 7 reports it (empty writeErrors). */
const connectionLost = () => new MongoBulkWriteError(new MongoNetworkError("connect ECONNREFUSED 127.0.0.1:1"), { insertedCount: 0 } as never);
/** A bulk insert whose second document hit a unique index (no keyPattern in the reply, as the emulator answers). */
const bulkDuplicate = () => new MongoBulkWriteError({
  message: "E11000 duplicate key error collection: kw.permissions index: workspace_slug dup key: { workspaceId: \"ws\", slug: \"x\" }",
  code: 11000,
  writeErrors: [{ index: 1, code: 11000, errmsg: "E11000 duplicate key error collection: kw.permissions index: workspace_slug dup key: { workspaceId: \"ws\", slug: \"x\" }" }],
} as never, { insertedCount: 1 } as never);

describe("mongo outage classification", () => {
  it("connection failures, server selection and operation timeouts, failover codes and transient labels are outages", () => {
    expect(isOutageError(new MongoNetworkError("socket hang up"))).toBe(true);
    expect(isOutageError(new MongoServerSelectionError("Server selection timed out", {} as never))).toBe(true);
    expect(isOutageError({ name: "MongoOperationTimeoutError", message: "Timed out during server selection" })).toBe(true);
    expect(isOutageError(new MongoServerError({ code: 10107, errmsg: "not primary" }))).toBe(true);
    expect(isOutageError(new MongoServerError({ code: 64, errmsg: "waiting for replication timed out" }))).toBe(true);
    expect(isOutageError({ name: "MongoServerError", code: 1, errorLabels: ["RetryableWriteError"] })).toBe(true);
    expect(isOutageError(connectionLost())).toBe(true);
    // Writing to a socket the server already closed surfaces as Node's own error.
    expect(isOutageError(Object.assign(new Error("This socket has been ended by the other party"), { code: "EPIPE" }))).toBe(true);
  });

  it("refusals of the operation itself are not outages", () => {
    expect(isOutageError(new MongoServerError({ code: 11000, errmsg: "E11000 duplicate key error" }))).toBe(false);
    expect(isOutageError(bulkDuplicate())).toBe(false);
    expect(isOutageError(new MongoServerError({ code: 121, errmsg: "Document failed validation" }))).toBe(false);
    expect(isOutageError(new Error("bug"))).toBe(false);
    expect(isOutageError(undefined)).toBe(false);
  });

  it("an outage becomes StoreUnavailableError without the driver's message; anything else is passed on unchanged", () => {
    const outage = translateOutage(new MongoNetworkError("connect ECONNREFUSED mongo.internal:27017"));
    expect(outage).toBeInstanceOf(StoreUnavailableError);
    expect(outage).toMatchObject({ kind: "unavailable", message: "The document store (MongoDB) is unavailable; try again shortly." });
    const duplicate = bulkDuplicate();
    expect(translateOutage(duplicate)).toBe(duplicate);
  });

  it("withOutagesTranslated wraps the verbs of every sub-store and leaves close alone", async () => {
    const closeError = new MongoNetworkError("closing");
    const store = withOutagesTranslated({
      keys: { findByHash: async () => { throw new MongoNetworkError("down"); }, count: async () => 3 },
      close: async () => { throw closeError; },
    });
    await expect(store.keys.findByHash()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.keys.count()).resolves.toBe(3);
    await expect(store.close()).rejects.toBe(closeError);
  });
});

describe("mongo event batch failures", () => {
  it("a bulk write that failed as a whole refused nothing: the batch is retried", () => {
    expect(refusedDocuments(connectionLost())).toBe(0);
    expect(refusedDocuments(new MongoBulkWriteError({ message: "waiting for replication timed out", code: 64 } as never, { insertedCount: 3 } as never))).toBe(0);
    expect(refusedDocuments(new MongoNetworkError("down"))).toBe(0);
  });

  it("documents refused one by one are counted (and dropped)", () => {
    expect(refusedDocuments(bulkDuplicate())).toBe(1);
  });
});

describe("mongo duplicate-key errors of bulk writes", () => {
  it("name the index by its fields, as single writes and the embedded store do", () => {
    expect(duplicateKeyTarget(bulkDuplicate(), "roles")).toStrictEqual({ collection: "permissions", index: "workspaceId,slug" });
  });

  it("prefer the write error's keyPattern when the server sends one", () => {
    const withPattern = new MongoBulkWriteError({
      message: "E11000 duplicate key error collection: kw.permissions index: workspace_name dup key: { }",
      code: 11000,
      writeErrors: [{ index: 0, code: 11000, keyPattern: { workspaceId: 1, name: 1 }, errmsg: "E11000 duplicate key error collection: kw.permissions index: workspace_name dup key: { }" }],
    } as never, { insertedCount: 0 } as never);
    expect(duplicateKeyTarget(withPattern, "permissions")).toStrictEqual({ collection: "permissions", index: "workspaceId,name" });
  });
});
