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

/** Bound on every operation (client-side operation timeout, CSOT): server selection, pool wait, round trips, write concern. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** How long an operation waits for a usable server; below the operation bound, so an outage answers first. */
export const DEFAULT_SERVER_SELECTION_TIMEOUT_MS = 5_000;
/** Legacy bounds, used only when the URL chooses the legacy timeout model (see clientOptionsFor). */
export const DEFAULT_SOCKET_TIMEOUT_MS = 10_000;
export const DEFAULT_WTIMEOUT_MS = 5_000;

/**
 * Client options Keyward sets unless the connection string sets them itself: the driver lets object options
 * override URL options, and operators tune MongoDB through MONGODB_URL. Each default is decided per option, so a
 * URL that sets one of them keeps every other default.
 * - Writes default to majority + journal so an acknowledged write survives a crash (DESIGN: "a crash loses no
 *   acknowledged write"); on a standalone server majority is the one node. `w` and `journal` are defaulted apart.
 * - Every operation is bounded: `timeoutMS` (default 10 s) and `serverSelectionTimeoutMS` (default 5 s). The driver
 *   discards `wtimeoutMS`/`socketTimeoutMS` once `timeoutMS` is set, so a URL naming either of those (and not
 *   `timeoutMS`) chooses the legacy model instead: then `socketTimeoutMS` (10 s) and `wtimeoutMS` (5 s) default.
 */
export function clientOptionsFor(url: string): MongoClientOptions {
  const given = urlOptionNames(url);
  const options: MongoClientOptions = {};
  if (!given.has("appname")) options.appName = "keyward";
  if (!given.has("serverselectiontimeoutms")) options.serverSelectionTimeoutMS = DEFAULT_SERVER_SELECTION_TIMEOUT_MS;
  const legacyTimeouts = !given.has("timeoutms") && (given.has("wtimeoutms") || given.has("sockettimeoutms") || given.has("wtimeout"));
  if (legacyTimeouts) {
    if (!given.has("sockettimeoutms")) options.socketTimeoutMS = DEFAULT_SOCKET_TIMEOUT_MS;
    if (!given.has("wtimeoutms") && !given.has("wtimeout")) options.wtimeoutMS = DEFAULT_WTIMEOUT_MS;
  } else if (!given.has("timeoutms")) {
    options.timeoutMS = DEFAULT_TIMEOUT_MS;
  }
  if (!given.has("w")) options.w = "majority";
  // fsync implies journaling on a journaled server; an operator who chose it chose durability themselves.
  if (!["journal", "j", "fsync"].some((name) => given.has(name))) options.journal = true;
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
