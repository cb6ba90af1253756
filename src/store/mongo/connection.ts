/** Pure helpers for connecting: client options, database name, redaction, topology capabilities. */
import type { Document, MongoClientOptions } from "mongodb";

const SCHEME = /^mongodb(?:\+srv)?:\/\//i;

/** Splits a connection string into its database path and query, without the hosts (which may be a list). */
function splitUrl(url: string): { path: string; query: string } {
  const scheme = SCHEME.exec(url);
  if (!scheme) return { path: "", query: "" };
  const rest = url.slice(scheme[0].length);
  const q = rest.indexOf("?");
  const beforeQuery = q < 0 ? rest : rest.slice(0, q);
  const slash = beforeQuery.indexOf("/");
  return { path: slash < 0 ? "" : beforeQuery.slice(slash + 1), query: q < 0 ? "" : rest.slice(q + 1) };
}

/** Option names present in the connection string, lower-cased (the driver treats them case-insensitively). */
function urlOptionNames(url: string): Set<string> {
  const { query } = splitUrl(url);
  const names = query.split("&").filter((pair) => pair !== "").map((pair) => pair.split("=")[0]!.toLowerCase());
  return new Set(names);
}

/**
 * Client options Keyward sets unless the connection string sets them itself: the driver lets object options
 * override URL options, and operators tune MongoDB through MONGODB_URL.
 * Writes default to majority + journal so an acknowledged write survives a crash (DESIGN: "a crash loses no
 * acknowledged write"); on a standalone server majority is the one node.
 */
export function clientOptionsFor(url: string): MongoClientOptions {
  const given = urlOptionNames(url);
  const options: MongoClientOptions = {};
  if (!given.has("appname")) options.appName = "keyward";
  if (!given.has("serverselectiontimeoutms")) options.serverSelectionTimeoutMS = 5000;
  if (!["w", "journal", "j", "wtimeoutms", "fsync"].some((name) => given.has(name))) {
    options.writeConcern = { w: "majority", journal: true };
  }
  return options;
}

/** The database named in the connection string's path, else "keyward" (the driver's own default is "test"). */
export function databaseNameFor(url: string): string {
  const { path } = splitUrl(url);
  return path === "" ? "keyward" : decodeURIComponent(path);
}

/** The connection string with its credentials replaced by `***`, safe for error messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^/?]*@/i, "$1***@");
}

/**
 * Whether the deployment runs multi-document transactions, from a `hello` reply: replica-set members report
 * `setName`, mongos reports `msg: "isdbgrid"`, and both need sessions (`logicalSessionTimeoutMinutes`).
 * A standalone server has no transactions.
 */
export function supportsTransactions(hello: Document): boolean {
  const sessions = typeof hello.logicalSessionTimeoutMinutes === "number";
  return sessions && (typeof hello.setName === "string" || hello.msg === "isdbgrid");
}
