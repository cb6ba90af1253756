import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.js";
import { createRequestObserver } from "../../src/observability/request-observer.js";
import { RouteTally } from "../../src/observability/route-tally.js";

function observer(perSecond: number) {
  const lines: Array<Record<string, unknown>> = [];
  const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  let now = 1_000_000;
  const done = createRequestObserver({ logger, sampleRate: 1, clientFailureLinesPerSecond: perSecond, now: () => now });
  return { lines, done, advance: (ms: number) => void (now += ms) };
}

describe("request log lines of clients' failures", () => {
  it("writes at most the budget per second at info, then one warn line counting the lines held back", () => {
    const { lines, done, advance } = observer(3);
    const rest = new RouteTally("rest-v2", "ApisService.CreateApi");
    for (let i = 0; i < 10; i++) done(rest, 400, performance.now(), `req_${i}`);
    expect(lines.map((l) => [l.level, l.msg, l.requestId])).toEqual([
      [30, "request", "req_0"], [30, "request", "req_1"], [30, "request", "req_2"],
    ]);
    advance(1000);
    done(rest, 415, performance.now(), "req_next");
    expect(lines.slice(3).map((l) => [l.level, l.msg, l.suppressed ?? l.requestId])).toEqual([
      [40, "client failure lines held back in the last second", 7], [30, "request", "req_next"],
    ]);
    // Every answer is still counted in the metrics' tally.
    expect(rest.statuses.get(400)).toBe(10);
  });

  it("counts RPC client codes against the same budget, but never holds back successes or server failures", () => {
    const { lines, done } = observer(1);
    const grpc = new RouteTally("grpc", "KeysService.VerifyKey");
    done(grpc, Code.InvalidArgument, performance.now(), "req_a");
    done(grpc, Code.ResourceExhausted, performance.now(), "req_b");
    for (let i = 0; i < 5; i++) done(grpc, 0, performance.now(), `req_ok${i}`);
    done(grpc, Code.Internal, performance.now(), "req_fail", new Error("boom"));
    expect(lines.map((l) => [l.level, l.requestId])).toEqual([
      [30, "req_a"], [30, "req_ok0"], [30, "req_ok1"], [30, "req_ok2"], [30, "req_ok3"], [30, "req_ok4"], [50, "req_fail"],
    ]);
  });
});
