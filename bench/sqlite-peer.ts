/**
 * The durable peer row: the verifier a careful user builds on node:http with credits and a rate-limit window kept in
 * SQLite (better-sqlite3, WAL mode), so a restart loses neither. POST /v2/keys.verifyKey with JSON `{ key }`: SHA-256
 * of the key, then one transaction that reads the key, counts the call in its fixed window and spends one credit.
 * Listens on PORT/HOST; the database lives in KEYWARD_DATA_DIR; serves one key, PEER_KEY.
 *
 * Durability as Keyward's embedded store (src/store/embedded/counters.ts): an acknowledged credit change is in the
 * OS before the answer, so it survives kill -9, and reaches the disk within a short interval, so a power loss may
 * lose the last moments. In WAL mode that is `synchronous = NORMAL`: each commit is written to the WAL file (the OS
 * has it), fsync happens at checkpoints. FULL would fsync every commit, which Keyward does only with syncIntervalMs 0.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { PEER_CREDITS, PEER_KEY, PEER_LIMIT } from "./peer-key.js";
import { readJsonBody, reply } from "./http-peer-io.js";

const dir = process.env.KEYWARD_DATA_DIR ?? ".";
mkdirSync(dir, { recursive: true });
const db = new Database(join(dir, "peer.sqlite3"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(`
  CREATE TABLE IF NOT EXISTS keys (hash TEXT PRIMARY KEY, key_id TEXT NOT NULL, name TEXT NOT NULL, remaining INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS windows (key_id TEXT PRIMARY KEY, started INTEGER NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID;
`);

const sha256 = (text: string) => createHash("sha256").update(text).digest("base64");
db.prepare("INSERT OR IGNORE INTO keys VALUES (?, 'key_peer', 'peer', ?)").run(sha256(PEER_KEY), PEER_CREDITS);

interface KeyRow { key_id: string; name: string; remaining: number }
const findKey = db.prepare<[string], KeyRow>("SELECT key_id, name, remaining FROM keys WHERE hash = ?");
const readWindow = db.prepare<[string], { started: number; used: number }>("SELECT started, used FROM windows WHERE key_id = ?");
const writeWindow = db.prepare("INSERT OR REPLACE INTO windows VALUES (?, ?, ?)");
const spend = db.prepare("UPDATE keys SET remaining = remaining - 1 WHERE hash = ?");

type Verdict =
  | { code: "NOT_FOUND" }
  | { code: "RATE_LIMITED" | "USAGE_EXCEEDED"; key: KeyRow }
  | { code: "VALID"; key: KeyRow; remaining: number; limitRemaining: number; reset: number };

/** One transaction per verification: the window count and the credit move together or not at all. */
const verify = db.transaction((hash: string, now: number): Verdict => {
  const key = findKey.get(hash);
  if (!key) return { code: "NOT_FOUND" };
  const stored = readWindow.get(key.key_id);
  const window = stored && now - stored.started < PEER_LIMIT.durationMs ? stored : { started: now, used: 0 };
  if (window.used >= PEER_LIMIT.points) return { code: "RATE_LIMITED", key };
  if (key.remaining <= 0) return { code: "USAGE_EXCEEDED", key };
  writeWindow.run(key.key_id, window.started, window.used + 1);
  spend.run(hash);
  return {
    code: "VALID", key, remaining: key.remaining - 1,
    limitRemaining: PEER_LIMIT.points - window.used - 1, reset: window.started + PEER_LIMIT.durationMs,
  };
});

const server = createServer(async (req, res) => {
  const body = await readJsonBody(req, res);
  if (body === undefined) return;
  const meta = { requestId: `req_${randomUUID()}` };
  const verdict = typeof body.key === "string" ? verify(sha256(body.key), Date.now()) : ({ code: "NOT_FOUND" } as const);
  if (verdict.code !== "VALID") {
    return reply(res, 200, { meta, data: { valid: false, code: verdict.code, ...("key" in verdict && { keyId: verdict.key.key_id }) } });
  }
  reply(res, 200, {
    meta,
    data: {
      valid: true, code: "VALID", keyId: verdict.key.key_id, name: verdict.key.name, credits: verdict.remaining,
      ratelimits: [{ name: "requests", limit: PEER_LIMIT.points, duration: PEER_LIMIT.durationMs, remaining: verdict.limitRemaining, reset: verdict.reset, exceeded: false, autoApply: true }],
    },
  });
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1");
process.on("SIGTERM", () => server.close(() => {
  db.close();
  process.exit(0);
}));
