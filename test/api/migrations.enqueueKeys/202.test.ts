import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app.js";
import { foreignKey } from "../../support/imports.js";
import { apiKeys, dataOf } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

describe("v1 migrations.enqueueKeys and keys.getMigration", () => {
  const harness = useKeyward();
  const enqueue = (body: unknown, rootKey = harness.keyward.rootKey) => harness.rest.v1Post("migrations.enqueueKeys", body, rootKey);
  const progress = async (jobId: string) => (await harness.rest.v2("keys.getMigration", { jobId }, harness.keyward.rootKey)).body.data;

  it("answers 202 with the job id once the job is stored; the import runs in the background and its progress is readable", async () => {
    const apiId = await harness.seed.api({ name: "queued" });
    const taken = foreignKey();
    expect((await harness.rest.v2("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [{ hash: taken.base64 }] }, harness.keyward.rootKey)).status).toBe(200);
    const [hashed, plain] = [foreignKey(), foreignKey()];
    const response = await enqueue({
      migrationId: "mig_from_unkey", apiId,
      keys: [
        { hash: { value: hashed.hex, variant: "sha256_hex" }, name: "queued", ownerId: "queued-owner", remaining: 3 },
        { plaintext: plain.plaintext },
        { hash: { value: taken.base64, variant: "sha256_base64" } },
      ],
    });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ jobId: expect.stringMatching(/^mig_/) });
    const { jobId } = response.body;
    // Stored before the answer: the job is there whatever the runner has done since.
    expect((await harness.keyward.documents.migrationJobs.get(harness.keyward.workspaceId, jobId))?.keys).toHaveLength(3);
    await harness.keyward.migrations.idle();
    expect(await progress(jobId)).toEqual({
      jobId, apiId, state: "done", total: 3, processed: 3,
      migrated: [{ hash: hashed.hex, keyId: expect.stringMatching(/^key_/) }, { hash: plain.base64, keyId: expect.stringMatching(/^key_/) }],
      failures: [{ hash: taken.base64, index: 2, error: "a key with this hash already exists" }],
      createdAt: harness.clock.now(), finishedAt: harness.clock.now(),
    });
    const verified = (await harness.rest.v1Post("keys.verifyKey", { key: hashed.plaintext })).body;
    expect(verified).toMatchObject({ valid: true, name: "queued", ownerId: "queued-owner", remaining: 2 });
    expect((await harness.rest.v1Post("keys.verifyKey", { key: plain.plaintext })).body.valid).toBe(true);
    expect(await apiKeys(harness, apiId)).toHaveLength(3);
  });

  it("queues and reads over Connect and gRPC too (EnqueueMigration, GetMigration)", async () => {
    for (const name of ["connect", "grpc"] as const) {
      const apiId = await harness.seed.api({ name: `queued-${name}` });
      const via = viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
      const key = foreignKey();
      const { jobId } = dataOf("keys.enqueueMigration", await via.call("keys.enqueueMigration", { migrationId: "sha256_hex", apiId, keys: [{ hash: key.hex }] }));
      await harness.keyward.migrations.idle();
      const job = dataOf("keys.getMigration", await via.call("keys.getMigration", { jobId }));
      expect({ state: job.state, total: job.total, processed: job.processed, hashes: job.migrated.map((m: { hash: string }) => m.hash) })
        .toEqual({ state: "done", total: 1, processed: 1, hashes: [key.hex] });
    }
  });

  it("bad input is 400 and stores no job; a missing create_key is 403; over 100 keys is 400", async () => {
    const apiId = await harness.seed.api({ name: "queued-refused" });
    const { key: readOnly } = await harness.seed.rootKey(["api.*.read_key"]);
    harness.writes.clear();
    const bad = await enqueue({ migrationId: "m", apiId, keys: [{ hash: { value: "short", variant: "sha256_base64" } }] });
    expect({ status: bad.status, code: bad.body.error.code, message: bad.body.error.message }).toEqual({ status: 400, code: "BAD_REQUEST", message: expect.stringMatching(/keys\[0\]\.hash must be 44/) });
    const many = await enqueue({ migrationId: "m", apiId, keys: Array.from({ length: 101 }, () => ({ plaintext: foreignKey().plaintext })) });
    expect({ status: many.status, code: many.body.error.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
    const forbidden = await enqueue({ migrationId: "m", apiId, keys: [{ plaintext: "sk_1234" }] }, readOnly);
    expect({ status: forbidden.status, message: forbidden.body.error.message }).toEqual({ status: 403, message: "Missing permission: api.*.create_key" });
    expect(harness.writes.writes).toEqual([]);
  });

  it("getMigration: another workspace's job is 404; reading needs read_key on the job's api (403 naming it)", async () => {
    const apiId = await harness.seed.api({ name: "queued-read" });
    const { jobId } = (await enqueue({ migrationId: "m", apiId, keys: [{ plaintext: foreignKey().plaintext }] })).body;
    const other = await harness.seed.workspace("queued-other");
    const theirs = await harness.rest.v2("keys.getMigration", { jobId }, other.rootKey.key);
    expect({ status: theirs.status, detail: theirs.body.error.detail }).toEqual({ status: 404, detail: `The migration ${jobId} does not exist.` });
    const { key: elsewhere } = await harness.seed.rootKey(["api.api_someother.read_key"]);
    const refused = await harness.rest.v2("keys.getMigration", { jobId }, elsewhere);
    expect({ status: refused.status, detail: refused.body.error.detail }).toEqual({ status: 403, detail: `Missing permission: api.*.read_key or api.${apiId}.read_key` });
    await harness.keyward.migrations.idle();
  });

  it("a job interrupted after its keys were written but before its progress was (a crash between the two) resumes without a second key", async () => {
    const apiId = await harness.seed.api({ name: "queued-resume" });
    const keys = Array.from({ length: 100 }, () => foreignKey());
    const { jobId } = (await enqueue({ migrationId: "m", apiId, keys: keys.map((k) => ({ hash: { value: k.base64, variant: "sha256_base64" } })) })).body;
    await harness.keyward.migrations.idle();
    const { documents } = harness.keyward;
    const done = (await documents.migrationJobs.get(harness.keyward.workspaceId, jobId))!;
    const firstRun = done.outcomes.map((o) => o.keyId);
    // The state a kill leaves when it lands after the keys' commit and before the progress commit, once its lease ran out.
    const lease = { ...done.lease!, until: harness.clock.now() };
    expect(await documents.migrationJobs.saveProgress({ ...done, state: "running", processed: 0, outcomes: [], finishedAt: undefined, lease })).toBe(true);
    const restarted = createApp({ ...harness.keyward.stores, clock: harness.clock });
    await restarted.migrations.idle(); // resume() queued the job on start
    const resumed = (await documents.migrationJobs.get(harness.keyward.workspaceId, jobId))!;
    expect(resumed.state).toBe("done");
    expect(resumed.outcomes.map((o) => o.keyId)).toEqual(firstRun);
    expect(resumed.outcomes.filter((o) => o.error)).toEqual([]);
    expect(await apiKeys(harness, apiId)).toHaveLength(100);
    await restarted.stop();
  });
});
