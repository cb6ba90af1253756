/**
 * The baseline: a bare node:http server doing the least a JSON API can do (read the body, parse it,
 * answer a small JSON envelope). Every target's req/s is reported as a ratio to this one.
 * Listens on PORT/HOST, like src/main.ts, so the bench starts both the same way.
 */
import { createServer } from "node:http";

const reply = JSON.stringify({ meta: { requestId: "req_x" }, data: { id: "api_x", name: "bench" } });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    if (chunks.length > 0) {
      try {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":"bad json"}');
        return;
      }
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
    res.end(reply);
  });
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1");
// The bench stops us with SIGTERM; close politely so the port is freed at once.
process.on("SIGTERM", () => server.close(() => process.exit(0)));
