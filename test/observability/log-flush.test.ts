import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createBatchedDestination } from "../../src/observability/log-destination.js";
import { startServerProcess, tempDataDir } from "../cli/keyward-cli.js";

const ROOT_KEY = "kw_root_logflush_0123456789abcdef";
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("the batched log destination", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const logFile = () => {
    const dir = mkdtempSync(join(tmpdir(), "keyward-log-dest-"));
    dirs.push(dir);
    const path = join(dir, "out.log");
    return { path, fd: openSync(path, "w"), read: () => readFileSync(path, "utf8") };
  };

  it("holds lines briefly, then writes them in order within tens of milliseconds, without a stop", async () => {
    const file = logFile();
    const destination = createBatchedDestination({ fd: file.fd });
    for (let i = 0; i < 100; i++) destination.write(`line ${i}\n`);
    await nextTurn();
    expect(file.read()).toBe("");
    const all = Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join("");
    const since = Date.now();
    while (file.read() !== all && Date.now() - since < 2_000) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(file.read()).toBe(all);
    await destination.close();
  });

  it("close writes every pending line after the ones already handed on, in order", async () => {
    const file = logFile();
    const destination = createBatchedDestination({ fd: file.fd });
    // Past 32 KB the lines are handed on at once (a write in flight); the rest are still pending at close.
    const lines = Array.from({ length: 400 }, (_, i) => `${JSON.stringify({ i, pad: "x".repeat(100) })}\n`);
    for (const line of lines) destination.write(line);
    await destination.close();
    expect(file.read()).toBe(lines.join(""));
  });

  it("keeps lines longer than its buffer, and lines that are not ASCII, whole and in order", async () => {
    const file = logFile();
    const destination = createBatchedDestination({ fd: file.fd });
    const lines = ["first\n", `${"é✓😀".repeat(30_000)}\n`, "between\n", `${"x".repeat(200_000)}\n`, "last\n"];
    for (const line of lines) destination.write(line);
    await destination.close();
    expect(file.read()).toBe(lines.join(""));
  });

  it("flushSync writes pending lines at once, for exit paths", () => {
    const file = logFile();
    const destination = createBatchedDestination({ fd: file.fd });
    destination.write("first\n");
    destination.write("second\n");
    destination.flushSync();
    expect(file.read()).toBe("first\nsecond\n");
  });
});

describe("the server's log on SIGTERM", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  afterAll(() => dirs?.remove());

  it("has a line for every request answered, each request id once, and ends with Keyward stopped", async () => {
    dirs = await tempDataDir();
    const server = await startServerProcess({ dataDir: dirs.dataDir, env: { KEYWARD_ROOT_KEY: ROOT_KEY } });
    const post = (op: string, body: unknown) => fetch(`${server.baseUrl}/v2/${op}`, {
      method: "POST", headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" }, body: JSON.stringify(body),
    });
    const apiId = (await (await post("apis.createApi", { name: "log-flush" })).json()).data.apiId;
    const { key } = (await (await post("keys.createKey", { apiId })).json()).data;
    // Bursts of concurrent verifications, the last one answered just before the signal: lines of its turn are pending.
    const ids: string[] = [];
    for (let burst = 0; burst < 20; burst++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => post("keys.verifyKey", { key })));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        ids.push(answer.headers.get("x-request-id") as string);
        await answer.arrayBuffer();
      }
    }
    expect(await server.stop()).toBe(0);

    const entries = server.output().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    const verified = entries.filter((entry) => entry.msg === "request" && entry.route === "KeysService.VerifyKey");
    expect(verified.map((entry) => entry.requestId).sort()).toEqual([...ids].sort());
    expect(verified.every((entry) => entry.status === 200 && entry.transport === "rest-v2")).toBe(true);
    expect(entries.at(-1)).toMatchObject({ level: 30, msg: "Keyward stopped" });
  });
});
