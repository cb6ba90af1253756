/**
 * Import throughput (not a timed test): `npx tsx bench/import.ts` imports IMPORT_KEYS keys (1,000,000) into one api
 * through the service's in-process entry, `createKeyImporter(...).importKeys`, in requests of IMPORT_BATCH keys
 * (1000, the v2 limit), each through an audited view of the documents as a MigrateKeys call is (so every key also
 * writes its key.create record). Half the hashes come as sha256_hex, half as sha256_base64. Prints keys/s, the
 * peak RSS and heap sampled after every batch, and checks a sample of the keys is findable by its plaintext's hash.
 * Stores: the embedded store in a temp dir (IMPORT_DIR to keep one), or MongoDB documents with MONGODB_URL
 * (counters stay embedded; no key here has credits, so they are not touched).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { MigrateKeyDataSchema } from "../gen/keyward/v1/keys_pb.js";
import { systemClock } from "../src/domain/clock.js";
import { hashKey } from "../src/domain/key-material.js";
import { openStores } from "../src/open-stores.js";
import { auditScopes } from "../src/services/audit/audited-operations.js";
import { createKeyCache } from "../src/services/key-cache.js";
import { createKeyImporter } from "../src/services/keys/import-keys.js";

const N = Number(process.env.IMPORT_KEYS ?? 1_000_000);
const BATCH = Number(process.env.IMPORT_BATCH ?? 1000);
for (const [name, value] of [["IMPORT_KEYS", N], ["IMPORT_BATCH", BATCH]] as const) {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1, got ${value}`);
}

const secretOf = (i: number) => `bench_${i.toString(36).padStart(8, "0")}`;
const MiB = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function main() {
  const dir = process.env.IMPORT_DIR ?? (await mkdtemp(join(tmpdir(), "keyward-import-bench-")));
  const stores = await openStores({ dataDir: dir, mongodbUrl: process.env.MONGODB_URL, redisUrl: undefined });
  const { documents, counters, events } = stores;
  const auditLogs = stores.auditLogs ?? documents.auditLogs;
  if (!auditLogs) throw new Error("no audit log store");
  const clock = systemClock;
  const random = (size: number) => new Uint8Array(randomBytes(size));
  const workspaceId = `ws_bench${randomBytes(4).toString("hex")}`;
  const apiId = `api_bench${randomBytes(4).toString("hex")}`;
  await documents.createWorkspace(
    { id: workspaceId, name: "bench", createdAt: clock.now() },
    { id: `key_root${randomBytes(4).toString("hex")}`, workspaceId, hash: hashKey(randomBytes(16).toString("hex")), start: "kw", permissions: ["api.*.create_key"], createdAt: clock.now() },
  );
  await documents.apis.insert({ id: apiId, workspaceId, name: "bench", createdAt: clock.now(), deleteProtection: false, storeEncryptedKeys: false });
  const principal = { workspaceId, rootKeyId: "key_bench", permissions: new Set(["api.*.create_key"]) };
  const audit = auditScopes({ documents, auditLogs, clock, randomBytes: random });
  const cache = createKeyCache({ clock, bus: stores.bus });

  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  };
  console.log(`importing ${N} keys in requests of ${BATCH} into ${process.env.MONGODB_URL ? "MongoDB" : "the embedded store"} (${dir})`);
  const started = performance.now();
  let imported = 0;
  for (let at = 0; at < N; at += BATCH) {
    const count = Math.min(BATCH, N - at);
    const variant = (at / BATCH) % 2 === 0 ? "sha256_hex" : "sha256_base64";
    const keys = Array.from({ length: count }, (_, i) => {
      const digest = createHash("sha256").update(secretOf(at + i)).digest(variant === "sha256_hex" ? "hex" : "base64");
      return create(MigrateKeyDataSchema, { hash: digest });
    });
    const scope = audit({ principal, requestId: `req_bench${at}` }, "key.create");
    const importer = createKeyImporter({ documents: scope.documents, counters, events, cache, clock, randomBytes: random });
    const result = await importer.importKeys(principal, { migrationId: variant, apiId, keys });
    if (result.failures.length > 0) throw new Error(`batch at ${at}: ${result.failures.length} failed: ${result.failures[0].error}`);
    imported += result.migrated.length;
    sample();
    if ((at / BATCH) % 100 === 0 && at > 0) {
      const seconds = (performance.now() - started) / 1000;
      console.log(`  ${imported} keys, ${(imported / seconds).toFixed(0)} keys/s, rss ${MiB(process.memoryUsage().rss)} MiB`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  for (const i of [0, Math.floor(N / 2), N - 1]) {
    if (!(await documents.keys.findByHash(hashKey(secretOf(i))))) throw new Error(`key ${i} is not findable by its hash`);
  }
  console.log(`imported ${imported} keys in ${seconds.toFixed(1)} s: ${(imported / seconds).toFixed(0)} keys/s; `
    + `peak RSS ${MiB(peakRss)} MiB, peak heap ${MiB(peakHeap)} MiB`);
  await stores.close();
  if (!process.env.IMPORT_DIR) await rm(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
