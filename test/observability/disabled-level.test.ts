import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../src/observability/logger.js";
import { createRequestObserver } from "../../src/observability/request-observer.js";
import { RouteTally } from "../../src/observability/route-tally.js";

/** A logger whose info level is off and which records every call the observer makes on it beyond the level check. */
function warnLevelLogger() {
  const calls: string[] = [];
  const record = (name: string) => (..._args: unknown[]) => void calls.push(name);
  const lines = { isLevelEnabled: (level: string) => level !== "info" && level !== "debug" && level !== "trace", info: record("info"), warn: record("warn"), error: record("child.error") };
  const logger = { child: () => lines, error: record("error") } as unknown as Logger;
  return { logger, calls };
}

describe("request lines at a disabled level", () => {
  it("are never built or handed to the logger, and every answer is still counted", () => {
    const { logger, calls } = warnLevelLogger();
    const done = createRequestObserver({ logger, sampleRate: 1 });
    const rest = new RouteTally("rest-v2", "KeysService.VerifyKey");
    const grpc = new RouteTally("grpc", "KeysService.VerifyKey");
    for (let i = 0; i < 100; i++) {
      done(rest, 200, performance.now(), `req_${i}`);
      done(rest, 404, performance.now(), `req_${i}`);
      done(grpc, Code.PermissionDenied, performance.now(), `req_${i}`);
    }
    expect(calls).toEqual([]);
    expect([...rest.statuses]).toEqual([[200, 100], [404, 100]]);
    expect([...grpc.statuses]).toEqual([[Code.PermissionDenied, 100]]);
    expect(rest.latency.count + grpc.latency.count).toBe(300);
  });

  it("a server failure is still logged at error", () => {
    const { logger, calls } = warnLevelLogger();
    const done = createRequestObserver({ logger, sampleRate: 1 });
    done(new RouteTally("rest-v2", "KeysService.VerifyKey"), 503, performance.now(), "req_1", new Error("down"));
    expect(calls).toEqual(["error"]);
  });
});
