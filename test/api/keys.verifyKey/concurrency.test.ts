import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { manualClock, startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { startClientWorker } from "../../support/client-worker.js";
import { startSecondInstance, type SecondInstance } from "../../support/second-instance.js";
import { countCodes, keyAdmin, type KeyAdmin } from "../../support/verify-key.js";

const MINUTE = 60_000;
const WORKER = fileURLToPath(new URL("./fixtures/verify-worker.ts", import.meta.url));

/** `count` REST v2 verifications of `key` sent at once, spread round-robin over `baseUrls`; every answer must be 200. */
async function verifyAtOnce(baseUrls: string[], rootKey: string, key: string, count: number): Promise<Record<string, number>> {
  const codes = await Promise.all(Array.from({ length: count }, async (_, i) => {
    const response = await fetch(`${baseUrls[i % baseUrls.length]}/v2/keys.verifyKey`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${rootKey}` },
      body: JSON.stringify({ key }),
    });
    const body = await response.json();
    return response.status === 200 ? body.data.code : `HTTP_${response.status}`;
  }));
  return countCodes(codes);
}

/** The same exactness cases on one server, whatever counters it runs on. */
function exactnessCases(server: () => { keyward: RunningKeyward; admin: KeyAdmin }) {
  it("500 concurrent verifications of a key with 100 credits: exactly 100 VALID, 400 USAGE_EXCEEDED, balance 0", async () => {
    const { keyward, admin } = server();
    const apiId = await admin.api();
    const { keyId, key } = await admin.key(apiId, { credits: { remaining: 100 } });
    expect(await verifyAtOnce([keyward.baseUrl], keyward.rootKey, key, 500)).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
    expect(await admin.balance(keyId)).toBe(0);
  });

  it("300 concurrent verifications against a limit of 100 per minute: exactly 100 VALID", async () => {
    const { keyward, admin } = server();
    const apiId = await admin.api();
    const { key } = await admin.key(apiId, { ratelimits: [{ name: "minute", limit: 100, duration: MINUTE, autoApply: true }] });
    expect(await verifyAtOnce([keyward.baseUrl], keyward.rootKey, key, 300)).toEqual({ VALID: 100, RATE_LIMITED: 200 });
  });

  it("credits and a limit together under load: VALID is bounded by the tighter of both and each moved exactly", async () => {
    const { keyward, admin } = server();
    const apiId = await admin.api();
    const { keyId, key } = await admin.key(apiId, {
      credits: { remaining: 80 }, ratelimits: [{ name: "minute", limit: 50, duration: MINUTE, autoApply: true }],
    });
    expect(await verifyAtOnce([keyward.baseUrl], keyward.rootKey, key, 200)).toEqual({ VALID: 50, RATE_LIMITED: 150 });
    expect(await admin.balance(keyId)).toBe(30);
  });
}

describe("keys.verifyKey concurrency", () => {
  // A frozen clock: no window boundary can fall inside a burst.
  const clock = manualClock(Date.UTC(2030, 0, 1, 0, 0, 30));

  describe("on the embedded counters", () => {
    let keyward: RunningKeyward;
    let admin: KeyAdmin;
    beforeAll(async () => {
      keyward = await startKeyward({ clock });
      admin = keyAdmin(keyward.baseUrl, keyward.rootKey);
    });
    afterAll(() => keyward?.stop());
    exactnessCases(() => ({ keyward, admin }));
  });

  describe("on Redis counters", () => {
    let keyward: RunningKeyward;
    let admin: KeyAdmin;
    let second: SecondInstance;
    beforeAll(async () => {
      keyward = await startKeyward({ clock, redisUrl: inject("redisUrl") });
      admin = keyAdmin(keyward.baseUrl, keyward.rootKey);
      second = await startSecondInstance(keyward, { redisUrl: inject("redisUrl"), clock });
    });
    afterAll(async () => {
      await second?.stop();
      await keyward?.stop();
    });
    exactnessCases(() => ({ keyward, admin }));

    it("3 client processes firing at once at one server: exactly 100 VALID in total", async () => {
      const apiId = await admin.api();
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 100 } });
      const workers = await Promise.all([167, 167, 166].map((n) => startClientWorker(WORKER, [keyward.baseUrl, keyward.rootKey, key, String(n)])));
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      const total = (code: string) => results.reduce((sum, r) => sum + (r[code] ?? 0), 0);
      expect({ VALID: total("VALID"), USAGE_EXCEEDED: total("USAGE_EXCEEDED"), requests: results.reduce((s, r) => s + Object.values(r).reduce((a, b) => a + b, 0), 0) })
        .toEqual({ VALID: 100, USAGE_EXCEEDED: 400, requests: 500 });
      expect(await admin.balance(keyId)).toBe(0);
    });

    it("two instances sharing documents and Redis, hit at once: exactly 100 VALID in total, balance 0 on both", async () => {
      const apiId = await admin.api();
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 100 } });
      expect(await verifyAtOnce([keyward.baseUrl, second.baseUrl], keyward.rootKey, key, 500)).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
      expect(await admin.balance(keyId)).toBe(0);
      expect(await keyAdmin(second.baseUrl, keyward.rootKey).balance(keyId)).toBe(0);
    });

    it("two instances and 3 client processes against one rate limit: exactly 100 VALID in total", async () => {
      const apiId = await admin.api();
      const { key } = await admin.key(apiId, { ratelimits: [{ name: "minute", limit: 100, duration: MINUTE, autoApply: true }] });
      const workers = await Promise.all([
        startClientWorker(WORKER, [keyward.baseUrl, keyward.rootKey, key, "100"]),
        startClientWorker(WORKER, [second.baseUrl, keyward.rootKey, key, "100"]),
        startClientWorker(WORKER, [second.baseUrl, keyward.rootKey, key, "100"]),
      ]);
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      const valid = results.reduce((sum, r) => sum + (r.VALID ?? 0), 0);
      const limited = results.reduce((sum, r) => sum + (r.RATE_LIMITED ?? 0), 0);
      expect({ valid, limited }).toEqual({ valid: 100, limited: 200 });
    });
  });
});
