import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess, tempDataDir, type ServerProcess } from "../cli/keyward-cli.js";
import { foreignKey, type ForeignKey } from "../support/imports.js";
import { restClient } from "../support/rest.js";

const ROOT_KEY = "kw_root_import_crash_0123456789abcdef";
const JOBS = 8;
const KEYS_PER_JOB = 1000;

describe("a queued import (migrations.enqueueKeys) killed with SIGKILL mid-import", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>> | undefined;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    await dirs?.remove();
  });

  it("finishes after a restart, each key imported exactly once; the 202 came after the job was stored", async () => {
    dirs = await tempDataDir();
    server = await startServerProcess({ dataDir: dirs.dataDir, env: { KEYWARD_ROOT_KEY: ROOT_KEY } });
    let rest = restClient(server.baseUrl);
    const apiId = (await rest.v2("apis.createApi", { name: "import-crash" }, ROOT_KEY)).body.data.apiId;
    const secrets: ForeignKey[] = [];
    const jobIds: string[] = [];
    for (let job = 0; job < JOBS; job++) {
      const keys = Array.from({ length: KEYS_PER_JOB }, () => foreignKey("crash"));
      secrets.push(...keys);
      // v1 as Unkey's clients send it (100 keys per request) for the first job, v2's larger requests for the rest.
      if (job === 0) {
        for (let at = 0; at < keys.length; at += 100) {
          const response = await rest.v1Post("migrations.enqueueKeys", {
            migrationId: "from-unkey", apiId, keys: keys.slice(at, at + 100).map((k) => ({ hash: { value: k.hex, variant: "sha256_hex" } })),
          }, ROOT_KEY);
          expect(response.status).toBe(202);
          jobIds.push(response.body.jobId);
        }
      } else {
        const response = await rest.v2("keys.enqueueMigration", { migrationId: "sha256_base64", apiId, keys: keys.map((k) => ({ hash: k.base64 })) }, ROOT_KEY);
        expect(response.status).toBe(200);
        jobIds.push(response.body.data.jobId);
      }
    }
    const progress = async (jobId: string) => (await rest.v2("keys.getMigration", { jobId }, ROOT_KEY)).body.data;
    // Kill once the background import is under way, with most of it still to do.
    const last = jobIds[jobIds.length - 1];
    for (;;) {
      const first = await progress(jobIds[10]);
      if (first.processed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    process.kill(server.pid, "SIGKILL");
    await server.stop();
    server = await startServerProcess({ dataDir: dirs.dataDir, env: { KEYWARD_ROOT_KEY: ROOT_KEY } });
    rest = restClient(server.baseUrl);
    const leftAtRestart = await progress(last);
    expect(leftAtRestart.state).not.toBe("done");
    const deadline = Date.now() + 60_000;
    while ((await progress(last)).state !== "done") {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const jobs = await Promise.all(jobIds.map(progress));
    expect(jobs.map((j) => j.state)).toEqual(jobIds.map(() => "done"));
    expect(jobs.flatMap((j) => j.failures)).toEqual([]);
    const migrated = jobs.flatMap((j) => j.migrated as { keyId: string }[]);
    expect(migrated).toHaveLength(JOBS * KEYS_PER_JOB);
    expect(new Set(migrated.map((m) => m.keyId)).size).toBe(JOBS * KEYS_PER_JOB);
    // Exactly the keys the jobs report, once each, in the api.
    const listed = (await rest.v2("apis.listKeys", { apiId, limit: 1 }, ROOT_KEY)).body;
    expect(listed.total ?? (await rest.v1Get("apis.listKeys", { apiId, limit: 1 }, ROOT_KEY)).body.total).toBe(JOBS * KEYS_PER_JOB);
    for (const secret of [secrets[0], secrets[999], secrets[1000], secrets[secrets.length - 1]]) {
      const answer = (await rest.v2("keys.verifyKey", { key: secret.plaintext }, ROOT_KEY)).body.data;
      expect(answer.code).toBe("VALID");
    }
  }, 120_000);
});
