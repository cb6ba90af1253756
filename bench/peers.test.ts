import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PEER_CREDITS, PEER_KEY } from "./peer-key.js";
import { freePort, repoRoot } from "./servers.js";

/**
 * better-sqlite3 is a native addon built by `npm ci` for the Node that ran it (CI: 20); the suite's pass on Node 24
 * cannot load it (ERR_DLOPEN_FAILED) until `npm rebuild better-sqlite3`, so the SQLite peer is tested where it loads.
 */
function sqliteLoads(): boolean {
  try {
    const Database = createRequire(import.meta.url)("better-sqlite3");
    new Database(":memory:").close();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_DLOPEN_FAILED") return false;
    throw error;
  }
}
const sqlite = sqliteLoads();

const dataDir = mkdtempSync(join(tmpdir(), "bench-peers-test-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts a peer on a free port with KEYWARD_DATA_DIR = `dir`; resolves once it answers. */
async function startPeer(entry: string, dir = dataDir) {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: repoRoot, env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", KEYWARD_DATA_DIR: dir }, stdio: "ignore",
  });
  const exited = once(child, "exit");
  const url = `http://127.0.0.1:${port}/v2/keys.verifyKey`;
  for (let i = 0; ; i++) {
    try {
      await fetch(url, { method: "POST", body: "{}" });
      break;
    } catch (error) {
      if (i > 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const verify = async (body: string) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { port, url, verify, kill: async (signal: NodeJS.Signals) => (child.kill(signal), await exited) };
}

describe.each(["bench/http-peer.ts", ...(sqlite ? ["bench/sqlite-peer.ts"] : [])])("the hand-rolled peer %s", (entry) => {
  it("answers VALID with one credit spent per call, NOT_FOUND for another key, 400 for a body that is no JSON object, 404 elsewhere", async () => {
    const peer = await startPeer(entry, mkdtempSync(join(dataDir, "run-")));
    try {
      const first = await peer.verify(JSON.stringify({ key: PEER_KEY }));
      expect(first.status).toBe(200);
      expect(first.json.meta.requestId).toMatch(/^req_/);
      expect(first.json.data).toMatchObject({ valid: true, code: "VALID", keyId: "key_peer", credits: PEER_CREDITS - 1 });
      expect(first.json.data.ratelimits[0]).toMatchObject({ name: "requests", remaining: 999_999_999, exceeded: false });
      expect((await peer.verify(JSON.stringify({ key: PEER_KEY }))).json.data).toMatchObject({ credits: PEER_CREDITS - 2 });
      expect(await peer.verify(JSON.stringify({ key: "bench_other" }))).toMatchObject({ status: 200, json: { data: { valid: false, code: "NOT_FOUND" } } });
      expect(await peer.verify(JSON.stringify({ key: 5 }))).toMatchObject({ status: 200, json: { data: { code: "NOT_FOUND" } } });
      expect((await peer.verify("[1")).status).toBe(400);
      expect((await peer.verify("[1]")).status).toBe(400);
      expect((await fetch(peer.url.replace("keys.verifyKey", "apis.getApi"), { method: "POST", body: "{}" })).status).toBe(404);
      // Nothing of the bad requests was spent.
      expect((await peer.verify(JSON.stringify({ key: PEER_KEY }))).json.data).toMatchObject({ credits: PEER_CREDITS - 3 });
    } finally {
      await peer.kill("SIGTERM");
    }
  }, 30_000);
});

describe.skipIf(!sqlite)("the durable peer", () => {
  it("keeps every acknowledged credit and window count through kill -9", async () => {
    const dir = mkdtempSync(join(dataDir, "durable-"));
    const before = await startPeer("bench/sqlite-peer.ts", dir);
    const answers = await Promise.all(Array.from({ length: 20 }, () => before.verify(JSON.stringify({ key: PEER_KEY }))));
    expect(answers.map((a) => a.json.data.credits).sort((a, b) => b - a)).toEqual(Array.from({ length: 20 }, (_, i) => PEER_CREDITS - 1 - i));
    await before.kill("SIGKILL");
    const after = await startPeer("bench/sqlite-peer.ts", dir);
    try {
      const next = await after.verify(JSON.stringify({ key: PEER_KEY }));
      expect(next.json.data).toMatchObject({ valid: true, credits: PEER_CREDITS - 21 });
      expect(next.json.data.ratelimits[0].remaining).toBe(1_000_000_000 - 21);
    } finally {
      await after.kill("SIGTERM");
    }
  }, 30_000);
});
