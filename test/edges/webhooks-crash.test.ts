import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startServerProcess, tempDataDir, type ServerProcess } from "../cli/keyward-cli.js";
import { restClient } from "../support/rest.js";
import { startReceiverOn, type Receiver } from "../support/webhook-receiver.js";
import { freePort } from "../support/free-port.js";

const ROOT_KEY = "kw_root_webhooks_crash_0123456789abcdef";


/**
 * At least once across a crash: with the receiver down, messages pile up in the outbox (and some changes have not
 * even been fanned out yet) when Keyward is SIGKILLed; after a restart on the same data directory, and once the
 * receiver answers, every message arrives, each verified by standardwebhooks.
 */
describe("webhooks across a SIGKILL of Keyward", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("delivers every message of changes acknowledged before the kill, once the receiver answers", async () => {
    const dirs = await tempDataDir();
    cleanups.push(() => dirs.remove());
    const env = {
      KEYWARD_ROOT_KEY: ROOT_KEY, KEYWARD_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      KEYWARD_WEBHOOKS_ALLOW_PRIVATE: "true", KEYWARD_WEBHOOKS_RETRY_SCALE: "0.0002",
    };
    const start = async () => {
      const server: ServerProcess = await startServerProcess({ dataDir: dirs.dataDir, env, timeoutMs: 60_000 });
      cleanups.push(() => server.stop());
      return server;
    };
    const first = await start();
    const rest = restClient(first.baseUrl);
    const port = await freePort(); // nothing listens there yet: the receiver is down
    const created = await rest.v2("webhooks.createWebhook", { url: `http://127.0.0.1:${port}/hook`, events: ["key.create"] }, ROOT_KEY);
    expect(created.status).toBe(200);
    const { secret } = created.body.data;
    const apiId = (await rest.v2("apis.createApi", { name: "crash" }, ROOT_KEY)).body.data.apiId;
    const keyIds: string[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await rest.v2("keys.createKey", { apiId }, ROOT_KEY);
      expect(answer.status).toBe(200);
      keyIds.push(answer.body.data.keyId);
    }
    process.kill(first.pid, "SIGKILL");
    await first.stop();

    const second = await start();
    const receiver: Receiver = await startReceiverOn(port);
    cleanups.push(() => receiver.close());
    receiver.state.secrets.push(secret);
    await vi.waitFor(() => expect(receiver.distinct("key.create").length).toBe(30), { timeout: 30_000, interval: 200 });
    const delivered = receiver.distinct("key.create").map((r) => r.data.resources.find((x: any) => x.type === "key").id).sort();
    expect(delivered).toEqual([...keyIds].sort());
    expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
    await second.stop();
  }, 90_000);
});
