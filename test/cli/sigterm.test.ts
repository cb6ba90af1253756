import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { restClient } from "../support/rest.js";
import { startServerProcess, tempDataDir } from "./keyward-cli.js";

const ROOT_KEY = "kw_root_sigterm_0123456789abcdef";
const CREDITS = 1_000_000;

interface Tally {
  statuses: number[];
  createdKeyIds: string[];
  valid: number;
  refused: number;
}

/** One client: alternately creates a key and verifies the shared one until the server stops answering. */
async function worker(baseUrl: string, apiId: string, sharedKey: string, tally: Tally): Promise<void> {
  const post = (op: string, body: unknown) =>
    fetch(`${baseUrl}/v2/${op}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  for (let i = 0; ; i++) {
    let res: Response;
    try {
      res = i % 2 === 0 ? await post("keys.createKey", { apiId }) : await post("keys.verifyKey", { key: sharedKey });
    } catch {
      // Refused, or reset before any answer: the server never took this request.
      tally.refused++;
      return;
    }
    const body = await res.json();
    tally.statuses.push(res.status);
    if (res.status !== 200) return;
    if (body.data.keyId && body.data.key) tally.createdKeyIds.push(body.data.keyId);
    if (body.data.code === "VALID") tally.valid++;
  }
}

describe("SIGTERM", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  afterAll(() => dirs?.remove());

  it("under load: answers every request it took, loses no acknowledged write, flushes and exits 0", async () => {
    dirs = await tempDataDir();
    const env = { KEYWARD_ROOT_KEY: ROOT_KEY, KEYWARD_SHUTDOWN_GRACE_MS: "5000" };
    const first = await startServerProcess({ dataDir: dirs.dataDir, env });
    const rest = restClient(first.baseUrl);
    const apiId = (await rest.v2("apis.createApi", { name: "sigterm-api" }, ROOT_KEY)).body.data.apiId;
    const shared = (await rest.v2("keys.createKey", { apiId, credits: { remaining: CREDITS } }, ROOT_KEY)).body.data;

    const tally: Tally = { statuses: [], createdKeyIds: [], valid: 0, refused: 0 };
    const load = Promise.all(Array.from({ length: 16 }, () => worker(first.baseUrl, apiId, shared.key, tally)));
    // Signal once the load is well under way.
    while (tally.statuses.length < 200) await new Promise((resolve) => setTimeout(resolve, 10));
    const signalled = Date.now();
    process.kill(first.pid, "SIGTERM");
    await load;
    const exitCode = await first.stop();
    // Done because the requests were, not because the 5 s grace ran out.
    expect(Date.now() - signalled).toBeLessThan(5_000);

    expect(exitCode).toBe(0);
    expect(first.output()).toContain("Keyward stopped");
    expect(tally.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(tally.refused).toBe(16);

    // A new process on the same data: every acknowledged key is there, and the credits moved by exactly the
    // acknowledged verifications.
    const second = await startServerProcess({ dataDir: dirs.dataDir, env });
    try {
      const again = restClient(second.baseUrl);
      for (const keyId of tally.createdKeyIds) {
        const found = await again.v2("keys.getKey", { keyId }, ROOT_KEY);
        expect({ keyId, status: found.status }).toEqual({ keyId, status: 200 });
      }
      const credits = await again.v2("keys.getKey", { keyId: shared.keyId }, ROOT_KEY);
      expect(credits.body.data.credits.remaining).toBe(CREDITS - tally.valid);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it("sent the moment the server reports listening: still stops through its shutdown and exits 0", async () => {
    // A supervisor may signal as soon as it sees the line. Several servers at once, so that some are descheduled
    // right after printing it, as on a busy machine.
    const quick = await tempDataDir();
    try {
      const results = await Promise.all(Array.from({ length: 6 }, async (_, n) => {
        const server = await startServerProcess({ dataDir: join(quick.root, `data-${n}`), timeoutMs: 60_000 });
        const code = await server.stop();
        return { code, stopped: server.output().includes("Keyward stopped") };
      }));
      expect(results).toEqual(results.map(() => ({ code: 0, stopped: true })));
    } finally {
      await quick.remove();
    }
  }, 90_000);
});
