import { createClient } from "@connectrpc/connect";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import { createLogger } from "../../src/observability/logger.js";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { restClient } from "../support/rest.js";
import { bearer, rpcTransports } from "../support/rpc.js";

/** A server whose log lines this test reads itself, parsed. */
async function serverWithLog(options: { logSampleRate?: number; level?: "info" | "warn" } = {}) {
  const lines: string[] = [];
  const { logger } = createLogger({ level: options.level ?? "info", destination: { write: (line: string) => void lines.push(line) } });
  const keyward = await startKeyward({ logger, logSampleRate: options.logSampleRate });
  return { keyward, lines, parsed: () => lines.map((line) => JSON.parse(line)) };
}

describe("request log", () => {
  let server: Awaited<ReturnType<typeof serverWithLog>>;
  let apiId: string;
  let created: { keyId: string; key: string };
  beforeAll(async () => {
    server = await serverWithLog();
    const rest = restClient(server.keyward.baseUrl);
    apiId = (await rest.v2("apis.createApi", { name: "logged" }, server.keyward.rootKey)).body.data.apiId;
    created = (await rest.v2("keys.createKey", { apiId }, server.keyward.rootKey)).body.data;
  });
  afterAll(() => server?.keyward.stop());

  it("writes one JSON line per request with request id, transport, route, status and duration", async () => {
    const { keyward, lines } = server;
    lines.length = 0;
    const rest = restClient(keyward.baseUrl);
    const verified = await rest.v2("keys.verifyKey", { key: created.key }, keyward.rootKey);
    const rpc = await createClient(KeysService, rpcTransports(keyward.baseUrl).grpc).verifyKey({ key: created.key }, {
      ...bearer(keyward.rootKey), onHeader: () => {},
    });
    expect(rpc.code).toBe("VALID");
    const entries = server.parsed();
    expect(entries).toHaveLength(2);
    expect(entries[0]).toEqual({
      level: 30, time: expect.any(Number), pid: process.pid, msg: "request",
      requestId: verified.headers.get("x-request-id"), transport: "rest-v2", route: "KeysService.VerifyKey", status: 200,
      durationMs: expect.any(Number),
    });
    expect(entries[1]).toMatchObject({ msg: "request", transport: "grpc", route: "KeysService.VerifyKey", status: "ok" });
    expect(entries[1].requestId).toMatch(/^req_/);
  });

  it("never writes a key, a root key or an Authorization header, whatever the request carried", async () => {
    const { keyward, lines } = server;
    lines.length = 0;
    const rest = restClient(keyward.baseUrl);
    await rest.v2("keys.verifyKey", { key: created.key }, keyward.rootKey);
    await rest.v2("keys.verifyKey", `{"key":"${created.key}"`, keyward.rootKey); // malformed JSON quoting the key
    await rest.v2("keys.createKey", { apiId }, `${keyward.rootKey}x`); // unknown root key, quoted nowhere
    await rest.v1Post("keys.verifyKey", { key: created.key, apiId: "api_other_0123456789" });
    const rerolled = (await rest.v2("keys.rerollKey", { keyId: created.keyId, expiration: 0 }, keyward.rootKey)).body.data;
    expect(lines).toHaveLength(5);
    const text = lines.join("");
    for (const secret of [created.key, keyward.rootKey, rerolled.key, "Bearer"]) expect(text).not.toContain(secret);
    expect(server.parsed().map((e) => e.status)).toEqual([200, 400, 401, 200, 200]);
  });
});

describe("request log sampling", () => {
  let server: Awaited<ReturnType<typeof serverWithLog>>;
  beforeAll(async () => void (server = await serverWithLog({ logSampleRate: 0 })));
  afterAll(() => server?.keyward.stop());

  it("at rate 0 logs no successful request, and every failed one", async () => {
    const rest = restClient(server.keyward.baseUrl);
    server.lines.length = 0;
    for (let i = 0; i < 3; i++) expect((await rest.v2("apis.createApi", { name: `sampled-${i}` }, server.keyward.rootKey)).status).toBe(200);
    expect((await rest.v2("apis.getApi", { apiId: "api_missing_0000" }, server.keyward.rootKey)).status).toBe(404);
    expect((await rest.v2("apis.getApi", {})).status).toBe(401);
    expect(server.parsed().map((e) => [e.level, e.route, e.status])).toEqual([[30, "ApisService.GetApi", 404], [30, "ApisService.GetApi", 401]]);
  });

  it("logs a 5xx at error with the error's stack, whatever the rate", async () => {
    const { keyward } = server;
    const rest = restClient(keyward.baseUrl);
    const apiId = (await rest.v2("apis.createApi", { name: "fails" }, keyward.rootKey)).body.data.apiId;
    const { key } = (await rest.v2("keys.createKey", { apiId, credits: { remaining: 5 } }, keyward.rootKey)).body.data;
    server.lines.length = 0;
    // The counter store is closed: a verification that needs counters fails closed with 503.
    await keyward.stores.counters.close();
    const failed = await rest.v2("keys.verifyKey", { key }, keyward.rootKey);
    expect(failed.status).toBe(503);
    const [entry] = server.parsed();
    expect(server.lines).toHaveLength(1);
    expect(entry).toMatchObject({ level: 50, msg: "request failed", transport: "rest-v2", route: "KeysService.VerifyKey", status: 503 });
    expect(entry.requestId).toBe(failed.headers.get("x-request-id"));
    expect(entry.err.message).toBe("The counter store is unavailable; try again shortly.");
    expect(entry.err.stack).toContain("counterFailure");
    expect(server.lines.join("")).not.toContain(key);
  });
});

describe("logger redaction", () => {
  it("censors secret-named fields even if a caller passes them", () => {
    const lines: string[] = [];
    const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    logger.info({ key: "sk_secret_value_0123456789", headers: { authorization: "Bearer kw_root_secret_0123456789" },
      nested: { rootKey: "kw_root_other_0123456789", plaintext: "pt_0123456789abcdef" }, encryptionKey: "base64secret0123456789==" }, "x");
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ key: "[redacted]", headers: "[redacted]", nested: { rootKey: "[redacted]", plaintext: "[redacted]" }, encryptionKey: "[redacted]" });
    expect(pino.levels.values.info).toBe(30);
  });
});
