import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

describe("apis.updateApi", () => {
  const harness = useKeyward();

  it("concurrent updates of different settings all land: each is re-applied on a fresh read when another won", async () => {
    const apiId = await harness.seed.api({ name: "contended" });
    const via = (name: "v2" | "connect" | "grpc") => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
    const changes: [ReturnType<typeof via>, Record<string, unknown>][] = [
      [via("v2"), { name: "contended-renamed" }],
      [via("connect"), { ipWhitelist: ["10.0.0.0/8"] }],
      [via("grpc"), { deleteProtection: true }],
      [via("v2"), { defaultPrefix: "race" }],
      [via("connect"), { defaultBytes: 48 }],
      [via("grpc"), { storeEncryptedKeys: true }],
    ];
    await Promise.all(changes.map(([client, fields]) => client.ok("apis.updateApi", { apiId, ...fields })));
    const api = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
    expect(api).toMatchObject({
      name: "contended-renamed", ipWhitelist: ["10.0.0.0/8"], deleteProtection: true, defaultPrefix: "race", defaultBytes: 48,
      storeEncryptedKeys: true, revision: 6,
    });
    const records = (await harness.rest.v2("auditLogs.list", { actions: ["api.update"], resourceId: apiId }, harness.keyward.rootKey)).body.data;
    expect(records).toHaveLength(6);
  });
});
