/**
 * Credits shared by an identity stay exact when three Keyward instances verify its keys at once: on one Redis and on
 * a real Redis Cluster (three masters; every counter of a verification under the identity's hash tag, one slot).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startRedisCluster, type RedisClusterHandle } from "../../../scripts/redis-cluster.mjs";
import { startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { startSecondInstance, type SecondInstance } from "../../support/second-instance.js";
import { countCodes, keyAdmin, verifyClient, VERIFY_VIAS } from "../../support/verify-key.js";

let cluster: RedisClusterHandle;

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const BACKENDS: { name: string; url: () => string }[] = [
  { name: "one Redis", url: () => inject("redisUrl") },
  { name: "a Redis Cluster", url: () => cluster.url },
];

for (const backend of BACKENDS) {
  describe(`keys.verifyKey: identity credits across three instances on ${backend.name}`, () => {
    let first: RunningKeyward;
    const others: SecondInstance[] = [];

    beforeAll(async () => {
      first = await startKeyward({ redisUrl: backend.url() });
      for (let i = 0; i < 2; i++) others.push(await startSecondInstance(first, { redisUrl: backend.url() }));
    }, 60_000);
    afterAll(async () => {
      for (const other of others) await other.stop();
      await first?.stop();
    });

    it("3 keys of one identity with 100 shared credits: 500 concurrent verifications over 3 instances give exactly 100 VALID", async () => {
      const urls = [first.baseUrl, ...others.map((other) => other.baseUrl)];
      const admin = keyAdmin(first.baseUrl, first.rootKey);
      const apiId = await admin.api("shared-credits");
      const { identityId } = await admin.ok("identities.createIdentity", { externalId: "fleet_shared", credits: { remaining: 100 } });
      // Two keys without credits of their own, one with plenty: only the identity's 100 can run out.
      const keys = [
        await admin.key(apiId, { externalId: "fleet_shared" }),
        await admin.key(apiId, { externalId: "fleet_shared" }),
        await admin.key(apiId, { externalId: "fleet_shared", credits: { remaining: 1_000 } }),
      ];
      const clients = urls.map((url) => verifyClient(url, first.rootKey));
      const results = await Promise.all(Array.from({ length: 500 }, (_, i) =>
        clients[i % 3]!.verify(VERIFY_VIAS[Math.floor(i / 3) % 3]!, { key: keys[(i + Math.floor(i / 9)) % 3]!.key })));
      expect(countCodes(results.map((r) => r.code))).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
      // Every instance reads the identity's balance as 0, and the third key lost exactly its VALID verifications.
      for (const url of urls) {
        expect((await keyAdmin(url, first.rootKey).ok("identities.getIdentity", { identity: identityId })).credits).toEqual({ remaining: 0 });
      }
      const thirdValid = results.filter((r, i) => (i + Math.floor(i / 9)) % 3 === 2 && r.valid).length;
      expect(await admin.balance(keys[2]!.keyId)).toBe(1_000 - thirdValid);
    }, 60_000);
  });
}
