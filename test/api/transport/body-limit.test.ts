import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID } from "../../support/vias.js";

const MiB = 1024 * 1024;
/**
 * Deno's node:http server resets a connection whose request it has not read to the end when the response is
 * written (test/support/too-large.ts has the same note), with or without Keyward's draining: Node only here.
 */
const IS_DENO = "Deno" in globalThis;

describe("request body limit", () => {
  const harness = useKeyward();
  /** A POST with a chunked body (no content-length) on `agent`, the answer's text read whole. */
  const postChunked = (agent: Agent, path: string, contentType: string, chunks: Array<string | Buffer>) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string; reusedSocket: boolean }>((resolve, reject) => {
      const req = request(`${harness.keyward.baseUrl}${path}`, {
        method: "POST", agent,
        headers: { authorization: `Bearer ${harness.keyward.rootKey}`, "content-type": contentType, "transfer-encoding": "chunked" },
      }, (res) => {
        let text = "";
        res.setEncoding("latin1").on("data", (c: string) => (text += c)).on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, reusedSocket: req.reusedSocket }));
      });
      req.on("error", reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
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

  it("refuses a chunked body (no content-length) once it passes 1 MiB, in small chunks or one big one, and serves the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const chunked = async (chunks: string[]) => {
      const { status, text } = await postChunked(agent, "/v2/apis.createApi", "application/json", chunks);
      return { status, body: JSON.parse(text) };
    };
    try {
      harness.writes.clear();
      const small = await chunked(['{"name":"big","pad":"', ...Array.from({ length: 20 }, () => "x".repeat(64 * 1024)), '"}']);
      expect([small.status, small.body.error.detail]).toEqual([413, `The request body exceeds ${MiB} bytes.`]);
      const big = await chunked([`{"name":"big","pad":"${"x".repeat(2 * MiB)}"}`]);
      expect([big.status, big.body.error.status]).toEqual([413, 413]);
      expect(harness.writes.writes).toEqual([]);
      const after = await chunked([JSON.stringify({ name: "after-chunked" })]);
      expect(after.status).toBe(200);
      expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, after.body.data.apiId)).toMatchObject({ name: "after-chunked" });
    } finally {
      agent.destroy();
    }
  });

  it.skipIf(IS_DENO)("a gRPC-Web call refused part-way through a chunked upload leaves its HTTP/1.1 connection serving the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, contentType: string, chunks: Buffer[]) => postChunked(agent, path, contentType, chunks);
    try {
      harness.writes.clear();
      // connect-node reads a gRPC-Web body by iterating the request and stops at the limit: the rest of the upload
      // must still be read off the socket for the connection to serve on.
      const frame = Buffer.alloc(5);
      frame.writeUInt32BE(2 * MiB, 1);
      const refused = await send("/keyward.v1.ApisService/CreateApi", "application/grpc-web+proto",
        [frame, ...Array.from({ length: 32 }, () => Buffer.alloc(64 * 1024, 0x0a))]);
      expect([refused.status, refused.headers["grpc-status"] ?? /grpc-status:\s*(\d+)/.exec(refused.text)?.[1]]).toEqual([200, "8"]);
      expect(harness.writes.writes).toEqual([]);
      const after = await send("/v2/apis.createApi", "application/json", [Buffer.from(JSON.stringify({ name: "after-grpc-web-limit" }))]);
      expect([after.status, after.reusedSocket]).toEqual([200, true]);
      const { apiId } = JSON.parse(after.text).data;
      expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ name: "after-grpc-web-limit" });
    } finally {
      agent.destroy();
    }
  });
});
