/**
 * Three Keyward processes on one MongoDB (the wire emulator) and one real Redis Cluster, hit round-robin as a load
 * balancer would: counters stay exact (a key's credits and an identity's shared ones), a change on one instance is
 * seen at once by the others, and an instance killed mid-load loses no write it acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerOfSlot, redisCli } from "../../scripts/redis-cluster.mjs";
import { countCodes, keyAdmin, verifyClient } from "../support/verify-key.js";
import { mongo } from "../support/mongo.js";
import { startFleet, type Fleet } from "./fleet.js";

const DAY = 86_400_000;
let fleet: Fleet;

beforeAll(async () => {
  if (mongo.skip) return; // no emulator: the suites below are skipped
  fleet = await startFleet({ count: 3, db: "kw_many" });
}, 180_000);
afterAll(async () => {
  await fleet?.stop();
});

/** `n` v2 verifications of `key`, all at once, spread round-robin over `urls`; returns the codes in order. */
async function roundRobin(urls: string[], n: number, body: Record<string, unknown>): Promise<string[]> {
  const clients = urls.map((url) => verifyClient(url, fleet.rootKey));
  const results = await Promise.all(Array.from({ length: n }, (_, i) => clients[i % clients.length]!.verify("v2", body as never)));
  return results.map((result) => result.code);
}

describe.skipIf(mongo.skip)(`three instances on MongoDB and a Redis Cluster${mongo.skip}`, () => {
  it("500 verifications round-robin against 100 credits give exactly 100 VALID, and every instance reads 0 left", async () => {
    const urls = fleet.instances.map((instance) => instance.baseUrl);
    const admin = keyAdmin(urls[0]!, fleet.rootKey);
    const apiId = await admin.api("fleet-credits");
    const { keyId, key } = await admin.key(apiId, { credits: { remaining: 100 } });
    expect(countCodes(await roundRobin(urls, 500, { key }))).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
    for (const url of urls) expect(await keyAdmin(url, fleet.rootKey).balance(keyId)).toBe(0);
  });

  it("3 keys of one identity sharing 100 credits: 500 verifications round-robin give exactly 100 VALID, every instance reads 0 left", async () => {
    const urls = fleet.instances.map((instance) => instance.baseUrl);
    const admin = keyAdmin(urls[2]!, fleet.rootKey);
    const apiId = await admin.api("fleet-identity-credits");
    const { identityId } = await admin.ok("identities.createIdentity", { externalId: "fleet_tenant", credits: { remaining: 100 } });
    const keys = await Promise.all([0, 1, 2].map(() => admin.key(apiId, { externalId: "fleet_tenant" })));
    const clients = urls.map((url) => verifyClient(url, fleet.rootKey));
    // Request i goes to instance i % 3 with key (i / 3) % 3: every instance verifies every key.
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => clients[i % 3]!.verify("v2", { key: keys[Math.floor(i / 3) % 3]!.key })));
    expect(countCodes(results.map((r) => r.code))).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
    for (const url of urls) {
      expect((await keyAdmin(url, fleet.rootKey).ok("identities.getIdentity", { identity: identityId })).credits).toEqual({ remaining: 0 });
    }
  });

  it("300 verifications round-robin against a 50/day limit give exactly 50 VALID", async () => {
    const urls = fleet.instances.map((instance) => instance.baseUrl);
    const admin = keyAdmin(urls[1]!, fleet.rootKey);
    const apiId = await admin.api("fleet-limits");
    const { key } = await admin.key(apiId, { ratelimits: [{ name: "daily", limit: 50, duration: DAY, autoApply: true }] });
    expect(countCodes(await roundRobin(urls, 300, { key }))).toEqual({ VALID: 50, RATE_LIMITED: 250 });
  });

  it("a key updated or deleted on A answers its new state on B and C, though they had it cached", async () => {
    const [a, b, c] = fleet.instances.map((instance) => instance.baseUrl) as [string, string, string];
    const adminA = keyAdmin(a, fleet.rootKey);
    const apiId = await adminA.api("fleet-cache");
    const { keyId, key } = await adminA.key(apiId, {});
    const verify = async (url: string) => (await verifyClient(url, fleet.rootKey).verify("v2", { key })).code;
    /**
     * Verifies on `url` until it answers `code`; the invalidation travels over the cluster's pub/sub after A answered.
     * The bound only stops a test that would never pass.
     */
    const eventually = async (url: string, code: string) => {
      let last = "";
      for (const started = Date.now(); Date.now() - started < 10_000; ) {
        if ((last = await verify(url)) === code) return;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      throw new Error(`${url} still answered ${last}, not ${code}`);
    };
    // Warm every instance's cache.
    for (const url of [a, b, c]) await eventually(url, "VALID");

    await adminA.update({ keyId, enabled: false });
    await eventually(b, "DISABLED");
    await eventually(c, "DISABLED");

    await adminA.update({ keyId, enabled: true });
    await eventually(c, "VALID");
    await eventually(b, "VALID");

    await adminA.ok("keys.deleteKey", { keyId });
    await eventually(b, "NOT_FOUND");
    await eventually(c, "NOT_FOUND");
    // Deleted stays deleted everywhere.
    for (const url of [a, b, c]) expect(await verify(url)).toBe("NOT_FOUND");
  });

  it("an instance killed with SIGKILL mid-load loses no acknowledged write: keys it created exist, credits add up", async () => {
    const victim = await fleet.addInstance();
    const survivors = fleet.instances.filter((instance) => instance !== victim).map((instance) => instance.baseUrl);
    const admin = keyAdmin(survivors[0]!, fleet.rootKey);
    const apiId = await admin.api("fleet-kill");
    const { keyId, key } = await admin.key(apiId, { credits: { remaining: 1_000 } });
    const victimVerify = verifyClient(victim.baseUrl, fleet.rootKey);
    const created: string[] = [];
    const tally = { valid: 0, victimValid: 0, failed: 0, afterKill: 0 };
    let killed = false;

    // The victim takes a steady stream of key creations and verifications until it dies.
    const onVictim = async () => {
      for (let i = 0; ; i++) {
        try {
          if (i % 2 === 0) {
            const response = await fetch(`${victim.baseUrl}/v2/keys.createKey`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${fleet.rootKey}` },
              body: JSON.stringify({ apiId, name: `made-${i}` }),
            });
            if (response.status === 200) created.push(((await response.json()) as { data: { keyId: string } }).data.keyId);
          } else {
            const response = await victimVerify.send("v2", { key });
            if (response.status === 200 && response.body.data.code === "VALID") tally.victimValid += 1;
          }
        } catch {
          tally.failed += 1;
          if (killed) return;
        }
      }
    };
    const survivorsLoad = async () => {
      const client = verifyClient(survivors[tally.valid % survivors.length]!, fleet.rootKey);
      while (tally.afterKill < 100) {
        if ((await client.verify("v2", { key })).code === "VALID") tally.valid += 1;
        if (killed) tally.afterKill += 1;
      }
    };
    const loads = [onVictim(), onVictim(), survivorsLoad(), survivorsLoad()];
    // Polls the load's progress; the bound only stops a run that would never get there.
    for (const started = Date.now(); created.length < 20; ) {
      if (Date.now() - started > 20_000) throw new Error(`the victim created only ${created.length} keys in 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.kill(victim.pid, "SIGKILL");
    killed = true;
    await Promise.all(loads);

    expect(created.length).toBeGreaterThanOrEqual(20);
    // Every key creation the victim acknowledged is stored, and readable through the survivors.
    const listed = await keyAdmin(survivors[1]!, fleet.rootKey).ok("apis.listKeys", { apiId, limit: 100 });
    const listedIds = new Set<string>(listed.map((k: { keyId: string }) => k.keyId));
    for (const id of created) expect(listedIds.has(id), id).toBe(true);
    // Every acknowledged VALID took its credit; at most the requests cut off by the kill took one unanswered.
    const balance = (await admin.balance(keyId))!;
    const answered = tally.valid + tally.victimValid;
    expect(balance).toBeLessThanOrEqual(1_000 - answered);
    expect(balance).toBeGreaterThanOrEqual(1_000 - answered - tally.failed);
    expect(tally.afterKill).toBeGreaterThanOrEqual(100);
  });
});

// Last: it kills a Redis master, so the cluster runs on with one shard failed over.
describe.skipIf(mongo.skip)(`three instances while a Redis master fails over${mongo.skip}`, () => {
  it("answers 503 while the key's master is down, recovers on the promoted replica, and never grants more than the credits", async () => {
    // The three first instances: the fourth was killed above.
    const urls = fleet.instances.slice(0, 3).map((instance) => instance.baseUrl);
    const admin = keyAdmin(urls[0]!, fleet.rootKey);
    const apiId = await admin.api("fleet-failover");
    const { keyId, key } = await admin.key(apiId, { credits: { remaining: 300 } });
    const masters = await fleet.cluster.masterPorts();
    const slot = Number(await redisCli(masters[0]!, ["cluster", "keyslot", `kw:{${keyId}}:credits:${keyId}`]));
    const victimPort = await ownerOfSlot(masters[0]!, slot);
    const victim = fleet.cluster.servers.find((server) => server.port === victimPort)!;

    const seen = { VALID: 0, USAGE_EXCEEDED: 0, unavailable: 0, other: [] as string[], validAfterOutage: 0, exhaustedAfterOutage: 0 };
    let killedAt = 0;
    const lane = async (lane: number) => {
      const clients = urls.map((url) => verifyClient(url, fleet.rootKey));
      for (let i = lane; seen.exhaustedAfterOutage < 20; i++) {
        if (killedAt && Date.now() - killedAt > 30_000) throw new Error(`no recovery within 30 s: ${JSON.stringify(seen)}`);
        const response = await clients[i % clients.length]!.send("v2", { key });
        if (response.status === 503) {
          seen.unavailable += 1;
          await new Promise((resolve) => setTimeout(resolve, 5)); // a client backing off, not a wait for time
          continue;
        }
        if (response.status !== 200) {
          seen.other.push(`${response.status} ${JSON.stringify(response.body)}`);
          continue;
        }
        const code = response.body.data.code as "VALID" | "USAGE_EXCEEDED";
        seen[code] += 1;
        if (seen.unavailable > 0 && code === "VALID") seen.validAfterOutage += 1;
        if (seen.unavailable > 0 && code === "USAGE_EXCEEDED") seen.exhaustedAfterOutage += 1;
        if (!killedAt && seen.VALID >= 50) {
          killedAt = Date.now();
          process.kill(victim.pid!, "SIGKILL");
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(lane));
    const outageMs = Date.now() - killedAt;

    expect(seen.other).toEqual([]);
    expect(seen.unavailable).toBeGreaterThan(0);
    expect(seen.validAfterOutage).toBeGreaterThan(0);
    expect(await ownerOfSlot(masters.find((port) => port !== victimPort)!, slot)).not.toBe(victimPort);
    // Never more VALID than credits, and no credit came back: a script cut off by the kill may have spent one unanswered.
    const balance = (await admin.balance(keyId))!;
    expect(seen.VALID).toBeLessThanOrEqual(300);
    expect(seen.VALID + balance).toBeLessThanOrEqual(300);
    expect(balance).toBe(0);
    console.log(`master failover under load: ${JSON.stringify({ ...seen, other: seen.other.length })}, ${outageMs} ms from kill to the end`);
  });
});
