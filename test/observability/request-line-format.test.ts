import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.js";
import { createRequestObserver } from "../../src/observability/request-observer.js";
import { RouteTally, type TransportName } from "../../src/observability/route-tally.js";

const sameTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

describe("request lines written without pino's formatting", () => {
  it("are byte for byte the lines pino writes for the same fields", () => {
    const written: string[] = [];
    const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void written.push(line) } });
    const done = createRequestObserver({ logger, sampleRate: 1, clientFailureLinesPerSecond: 1_000 });
    const viaPino = logger.child({}, { redact: [] });
    const cases: Array<[TransportName, string, number, string | undefined, string | number]> = [
      ["rest-v2", "KeysService.VerifyKey", 200, "req_1ChUizSGaCPc5aprb4Jb8d", 200],
      ["rest-v1", "KeysService.VerifyKeyV1", 404, "req_2", 404],
      ["http", "unknown", 404, undefined, 404],
      ["grpc", "KeysService.VerifyKey", 0, "req_3", "ok"],
      ["connect", "ApisService.GetApi", Code.PermissionDenied, "req_4", "permission_denied"],
      ["dashboard-http", "sign-in", 401, "req_5", 401],
    ];
    for (const [transport, route, status, requestId, shown] of cases) {
      written.length = 0;
      // A start in the past, so that durationMs has decimals.
      done(new RouteTally(transport, route), status, performance.now() - 1.234567, requestId);
      const [fast] = written;
      const durationMs = JSON.parse(fast).durationMs as number;
      viaPino.info({ requestId, transport, route, status: shown, durationMs }, "request");
      expect(written).toHaveLength(2);
      expect(sameTime(fast)).toBe(sameTime(written[1]));
    }
  });
});
