import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";

/** Sends raw HTTP/1.1 requests back to back on one connection and reads until `count` complete responses came. */
function pipelined(port: number, requests: string[]): Promise<{ status: number; body: any }[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    const responses: { status: number; body: any }[] = [];
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const head = buffer.subarray(0, headEnd).toString();
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < headEnd + 4 + length) return;
        const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString();
        responses.push({ status: Number(head.split(" ")[1]), body: JSON.parse(body) });
        buffer = buffer.subarray(headEnd + 4 + length);
        if (responses.length === requests.length) {
          socket.end();
          resolve(responses);
          return;
        }
      }
    });
    socket.on("error", reject);
    socket.write(requests.join(""));
  });
}

const post = (path: string, body: object, rootKey: string) => {
  const text = JSON.stringify(body);
  return `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${rootKey}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
};

describe("REST over one HTTP/1.1 connection", () => {
  const harness = useKeyward();

  it("answers pipelined requests in the order sent, whichever of them waits on a durable write", async () => {
    const { rootKey } = harness.keyward;
    const apiId = await harness.seed.api({ name: "pipelined" });
    const withCredits = await harness.seed.key(apiId, { credits: { remaining: 5 } });
    const plain = await harness.seed.key(apiId);
    const responses = await pipelined(harness.keyward.port, [
      post("/v2/keys.verifyKey", { key: withCredits.key }, rootKey), // answered after the credits journal write
      "GET /v2/liveness HTTP/1.1\r\nhost: x\r\n\r\n",
      post("/v2/keys.verifyKey", { key: plain.key }, rootKey),
      post("/v2/apis.getApi", { apiId: "api_unknown" }, rootKey),
      post("/v2/keys.verifyKey", { key: withCredits.key }, rootKey),
    ]);
    expect(responses.map((r) => [r.status, r.body.data?.keyId ?? r.body.data?.message ?? r.body.error?.status])).toEqual([
      [200, withCredits.keyId],
      [200, "OK"],
      [200, plain.keyId],
      [404, 404],
      [200, withCredits.keyId],
    ]);
    // Each took one credit; which of the two concurrent verifications spent first depends on the document store's
    // reads (on MongoDB the second key lookup may return first), the answers still go out in request order.
    expect([responses[0].body.data.credits, responses[4].body.data.credits].sort()).toEqual([3, 4]);
  });
});
