/**
 * The reference for HTTP/2 rows: a bare node:http2 server answering unary gRPC calls on the raw `stream` event with
 * no application code (read the body, answer one fixed message and `grpc-status: 0` trailers). Listens on PORT/HOST.
 */
import { createServer, type ServerHttp2Stream } from "node:http2";

// One length-prefixed message: flag 0, length 2, a field-1 bool true (a VerifyKeyResponse with valid=true).
const reply = Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]);

const server = createServer();
server.on("stream", (stream: ServerHttp2Stream) => {
  stream.on("error", () => {});
  stream.on("data", () => {});
  stream.on("end", () => {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(reply);
  });
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
