import { Code } from "@connectrpc/connect";
import fc from "fast-check";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBatchedDestination } from "../../src/observability/log-destination.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRequestObserver } from "../../src/observability/request-observer.js";
import { writeMillis } from "../../src/observability/request-line.js";
import { RouteTally, type TransportName } from "../../src/observability/route-tally.js";

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

const sameTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

const cases: Array<[TransportName, string, number, string | undefined, string | number]> = [
  ["rest-v2", "KeysService.VerifyKey", 200, "req_1ChUizSGaCPc5aprb4Jb8d", 200],
  ["rest-v1", "KeysService.VerifyKeyV1", 404, "req_2", 404],
  ["http", "unknown", 404, undefined, 404],
  ["grpc", "KeysService.VerifyKey", 0, "req_3", "ok"],
  ["connect", "ApisService.GetApi", Code.PermissionDenied, "req_4", "permission_denied"],
  ["dashboard-http", "sign-in", 401, "req_5", 401],
  // Ids JSON must escape, and one that is not ASCII: pino writes those.
  ["rest-v2", "KeysService.VerifyKey", 200, 'req_"6"\\', 200],
  ["rest-v2", "KeysService.VerifyKey", 200, "req_\u0001é\u2028😀", 200],
];

describe("request lines written without pino's formatting", () => {
  it("are byte for byte the lines pino writes for the same fields, written into the batched output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keyward-line-"));
    const path = join(dir, "log");
    try {
      const destination = createBatchedDestination({ fd: openSync(path, "w") });
      const { logger } = createLogger({ level: "info", destination });
      const done = createRequestObserver({ logger, sampleRate: 1, clientFailureLinesPerSecond: 1_000 });
      const viaPino = logger.child({}, { redact: [] });
      // Each case twice, so that a route's fields made for the first line serve the second; then the same fields
      // through pino, with the durations the first lines got (a start in the past, so that they have decimals).
      const twice = [...cases, ...cases];
      for (const [transport, route, status, requestId] of twice) done(new RouteTally(transport, route), status, performance.now() - 1.234567, requestId);
      destination.flushSync();
      await until(() => readFileSync(path, "utf8").split("\n").length > twice.length);
      const fast = readFileSync(path, "utf8").split("\n").slice(0, -1);
      expect(fast).toHaveLength(twice.length);
      fast.forEach((line, i) => {
        const [transport, route, , requestId, shown] = twice[i]!;
        viaPino.info({ requestId, transport, route, status: shown, durationMs: JSON.parse(line).durationMs }, "request");
      });
      await destination.close();
      const all = readFileSync(path, "utf8").split("\n").slice(0, -1);
      expect(all.slice(fast.length).map(sameTime)).toStrictEqual(fast.map(sameTime));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("go through pino for a destination of the caller's, the same lines", () => {
    const written: string[] = [];
    const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void written.push(line) } });
    createRequestObserver({ logger, sampleRate: 1 })(new RouteTally("rest-v2", "KeysService.VerifyKey"), 200, performance.now(), "req_7");
    expect(JSON.parse(written[0]!)).toMatchObject({ level: 30, requestId: "req_7", transport: "rest-v2", status: 200, msg: "request" });
  });

  it("write a duration in whole microseconds as JavaScript writes micros / 1000", () => {
    const text = (micros: number) => {
      const bytes = new Uint8Array(32);
      return Buffer.from(bytes.subarray(0, writeMillis(bytes, 0, micros))).toString("latin1");
    };
    for (const micros of [0, 1, 10, 100, 999, 1_000, 1_500, 1_050, 1_005, 912, 12_000, 123_456_789]) expect(text(micros)).toBe(String(micros / 1000));
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (micros) => {
      expect(text(micros)).toBe(String(micros / 1000));
    }), { numRuns: 20_000 });
  });
});
