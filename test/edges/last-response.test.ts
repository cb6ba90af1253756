import { connect as tcpConnect } from "node:net";
import { connect as h2Connect } from "node:http2";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-grpc.js";
import { useKeyward } from "../support/use-keyward.js";

const BODY = 2 * 1024 * 1024;

/**
 * A client that sends `Connection: close`, then a 2 MiB body in 64 KiB pieces, and reads nothing until it has sent
 * everything: the slow uploader for whom a server that closes with unread input turns its 413 into a reset.
 */
function slowUpload(port: number, head: string): Promise<{ response: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1");
    socket.pause();
    let response = "";
    let sent = 0;
    const timer = setInterval(() => {
      const size = Math.min(64 * 1024, BODY - sent);
      socket.write(Buffer.alloc(size, "a"));
      sent += size;
      if (sent < BODY) return;
      clearInterval(timer);
      socket.on("data", (chunk) => (response += chunk));
      socket.resume();
    }, 2);
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearInterval(timer);
      resolve({ response, error: error.code });
    });
    socket.on("close", () => resolve({ response }));
    socket.write(head);
  });
}

describe("the last response of a connection", () => {
  const harness = useKeyward();

  it("a 413 to a Connection: close upload arrives whole, then the connection closes cleanly (HTTP/1.1)", async () => {
    for (const path of ["/v2/apis.createApi", "/v1/apis.createApi", "/keyward.v1.ApisService/CreateApi"]) {
      const head = `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${harness.keyward.rootKey}\r\n`
        + `connection: close\r\ncontent-length: ${BODY}\r\n\r\n`;
      const { response, error } = await slowUpload(harness.keyward.port, head);
      expect({ path, error }).toEqual({ path, error: undefined });
      // Connect's unary protocol answers resource_exhausted with 429; REST says 413.
      expect(response).toMatch(path.startsWith("/keyward") ? /^HTTP\/1\.1 429 / : /^HTTP\/1\.1 413 /);
      expect(response).toMatch(/\r\nconnection: close\r\n/i);
      expect(response).toContain("1048576");
    }
  });

  it("a 413 over h2c arrives whole and only that stream stops; the connection serves on", async () => {
    const session = h2Connect(harness.keyward.baseUrl);
    try {
      const answer = await rawRequest(session, "/v2/apis.createApi", {
        headers: { "content-type": "application/json", authorization: `Bearer ${harness.keyward.rootKey}` },
        body: Buffer.alloc(BODY, "a"),
      });
      expect(answer.headers[":status"]).toBe(413);
      expect(JSON.parse(answer.body.toString("utf8")).error.status).toBe(413);
      expect(answer.rstCode).toBe(0); // NO_ERROR: "stop sending", not a failure
      const next = await rawRequest(session, "/v2/liveness", { headers: { ":method": "GET" } });
      expect(next.headers[":status"]).toBe(200);
    } finally {
      session.close();
    }
  });
});
