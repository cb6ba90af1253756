import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("v1 migrations.enqueueKeys with plaintext keys", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32) });

  it("stores no plaintext in the job: its hash, start and (recoverable api) ciphertext; the key verifies and decrypts once imported", async () => {
    const apiId = await harness.seed.api({ name: "queued-plaintext" });
    const key = foreignKey("sk_live");
    const response = await harness.rest.v1Post("migrations.enqueueKeys", { migrationId: "m", apiId, keys: [{ plaintext: key.plaintext, name: "plain" }] }, harness.keyward.rootKey);
    expect(response.status).toBe(202);
    const job = await harness.keyward.documents.migrationJobs.get(harness.keyward.workspaceId, response.body.jobId);
    expect(JSON.stringify(job)).not.toContain(key.plaintext);
    expect(job?.keys).toEqual([expect.objectContaining({ hash: key.base64, hashVariant: "sha256_base64", start: key.plaintext.slice(0, "sk_live_".length + 4) })]);
    expect(job?.encrypted).toEqual([{ iv: expect.any(String), ciphertext: expect.any(String), tag: expect.any(String) }]);
    await harness.keyward.migrations.idle();
    const verified = (await harness.rest.v2("keys.verifyKey", { key: key.plaintext }, harness.keyward.rootKey)).body.data;
    expect(verified).toMatchObject({ valid: true, name: "plain", keyId: job?.keyIds[0] });
    const read = await harness.rest.v2("keys.getKey", { keyId: job?.keyIds[0], decrypt: true }, harness.keyward.rootKey);
    expect(read.body.data).toMatchObject({ plaintext: key.plaintext, start: key.plaintext.slice(0, "sk_live_".length + 4) });
  });
});
