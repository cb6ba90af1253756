import type { Http2Session } from "node:http2";
import { isMap } from "node:util/types";

/**
 * A session's stream table is renewed once a quarter of its streams have been replaced by new ones (see
 * renewStreamTable): each copy then lives about a quarter of a stream's lifetime, so it is seldom still in use at two
 * scavenges in a row (what would promote it), and copying costs about four entries per new stream.
 */
const RENEWALS_PER_TURNOVER = 4;

const COUNTDOWN = Symbol("keyward.streamTableCountdown");
type TrackedSession = Http2Session & { [COUNTDOWN]?: number };
type SessionState = { streams?: unknown };

// Node's key for a session's internal state, found on the first session that has one.
let stateKey: symbol | undefined;

/**
 * Gives an HTTP/2 session a fresh copy of the Map in which Node keeps its open streams, every few new streams (a
 * quarter of as many as it holds: RENEWALS_PER_TURNOVER). Call it for each new stream. Same entries, same class:
 * nothing changes for Node, which always reads the Map through its state object.
 *
 * Why: a Map's hash table is rebuilt every few additions when entries come and go (deleted slots fill it), and V8
 * allocates the new table in the old generation when the one it replaces is old, which every mark-compact makes it
 * (it promotes every live young object). The replaced table is garbage but keeps pointing at the streams it held; in
 * the old generation it is only collected by the next mark-compact, and until then it keeps those streams (and all
 * they reference) alive through every scavenge, which then promotes them. At 10 concurrent streams per connection
 * that was 1.1-1.6 KB promoted per call on a bare node:http2 server, and the growing old generation brought the next
 * mark-compact sooner: once it started, it never stopped. A copy's table is young again; its replaced tables die in
 * the next scavenge. Deno, or a Node without that Map, is left alone.
 */
export function renewStreamTable(session: Http2Session | undefined): void {
  if (session === undefined) return;
  const tracked = session as TrackedSession;
  const countdown = tracked[COUNTDOWN];
  if (countdown !== undefined && countdown > 1) {
    tracked[COUNTDOWN] = countdown - 1;
    return;
  }
  const state = stateOf(session);
  const streams = state?.streams;
  // isMap, not instanceof: Node's SafeMap has no Map.prototype in its chain.
  if (state === undefined || !isMap(streams)) {
    // Never again for this session.
    tracked[COUNTDOWN] = Infinity;
    return;
  }
  const size = (streams as Map<unknown, unknown>).size;
  // Copied as itself (Node's SafeMap). A lone stream is the one just added: no finished stream to outlive a table.
  if (size > 1) state.streams = new (streams.constructor as MapConstructor)(streams as Map<unknown, unknown>);
  tracked[COUNTDOWN] = Math.max(1, Math.ceil(size / RENEWALS_PER_TURNOVER));
}

function stateOf(session: Http2Session): SessionState | undefined {
  stateKey ??= Object.getOwnPropertySymbols(session).find((key) => key.description === "state");
  if (stateKey === undefined) return undefined;
  const state = (session as unknown as Record<symbol, unknown>)[stateKey];
  return typeof state === "object" && state !== null ? (state as SessionState) : undefined;
}
