import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID } from "../../support/vias.js";

const MiB = 1024 * 1024;

describe("request body limit", () => {
  const harness = useKeyward();
  const post = (path: string, body: string) =>
    harness.rest.raw(path, {
      method: "POST",
      headers: { authorization: `Bearer ${harness.keyward.rootKey}`, "content-type": "application/json" },
      body,
    });

  it("answers a body over 1 MiB with 413 in each dialect, and creates nothing", async () => {
    const oversized = JSON.stringify({ name: "big", pad: "x".repeat(MiB) });
    const before = await harness.snapshot();
    harness.writes.clear();

    const v2 = await post("/v2/apis.createApi", oversized);
    expect(v2.status).toBe(413);
    expect(v2.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      error: {
        title: "Payload Too Large", detail: `The request body exceeds ${MiB} bytes.`, status: 413,
        type: "https://keyward.dev/docs/errors/payload_too_large",
      },
    });
    expect(v2.headers.get("x-request-id")).toBe(v2.body.meta.requestId);

    const v1 = await post("/v1/apis.createApi", oversized);
    expect(v1.status).toBe(413);
    expect(v1.body.error).toMatchObject({ message: `The request body exceeds ${MiB} bytes.`, requestId: v1.headers.get("x-request-id") });

    const workspace = await post("/v2/workspaces.createWorkspace", JSON.stringify({ name: "x".repeat(MiB + 1) }));
    expect(workspace.status).toBe(413);

    expect(harness.writes.writes).toEqual([]);
    expect(await harness.snapshot()).toEqual(before);
  });

  it("serves the next request normally after a 413", async () => {
    expect((await post("/v2/apis.createApi", "x".repeat(MiB + 1))).status).toBe(413);
    const after = await post("/v2/apis.createApi", JSON.stringify({ name: "after-limit" }));
    expect(after.status).toBe(200);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, after.body.data.apiId)).toMatchObject({ name: "after-limit" });
  });

  it("accepts a body of exactly 1 MiB", async () => {
    const json = JSON.stringify({ name: "exactly-one-mib" });
    const response = await post("/v2/apis.createApi", json + " ".repeat(MiB - json.length));
    expect(response.status).toBe(200);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, response.body.data.apiId)).toMatchObject({
      name: "exactly-one-mib",
    });
  });
});
