import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routesOf, type Route } from "../../src/transport/rest/routes.js";
import { hostileBody, hostileValue, toText } from "../support/hostile-json.js";
import { expectClientAnswer, expectNoErrorLines, printSummary, startFuzzServer, type FuzzServer } from "./fuzz-server.js";

// Bounded: a few seconds per dialect on this machine; the seed is printed on failure for replay.
const RUNS_PER_ROUTE = Number(process.env.KEYWARD_FUZZ_RUNS ?? 20);

/**
 * Hostile REST input on every route of both dialects, with the all-permission root key so that each body reaches
 * decoding and validation: the answer is never a 5xx, a refusal names where the body is wrong, nothing a refused
 * request sent is written, and the log holds no error line.
 */
describe("REST fuzz: hostile bodies on every route", () => {
  let server: FuzzServer;
  let routes: Route[];
  beforeAll(async () => {
    server = await startFuzzServer();
    routes = routesOf(server.keyward.operations);
  });
  afterAll(async () => {
    if (server) printSummary("REST fuzz", server);
    await server?.keyward.stop();
  });

  for (const dialect of ["v2", "v1"] as const) {
    it(`${dialect}: every route answers hostile bodies with a 4xx naming the place, and writes nothing`, async () => {
      const served = routes.filter((route) => route.dialect === dialect);
      expect(served.length).toBeGreaterThan(dialect === "v2" ? 40 : 30);
      for (const route of served) {
        const input = route.verb === "GET" ? hostileQuery(route, server.ids) : hostileBody(route.operation.method.input, server.ids);
        await fc.assert(fc.asyncProperty(input, async (sent) => {
          server.writes.clear();
          const response = await send(server, route, sent);
          const text = await response.text();
          expectClientAnswer(server, `rest-${dialect} ${route.path}`, {
            ok: response.status < 300, serverError: response.status >= 500, what: sent.slice(0, 200),
          });
          expect(response.headers.get("x-request-id")).toMatch(/^req_/);
          if (response.status === 400) expectNamesThePlace(dialect, JSON.parse(text));
        }), { numRuns: RUNS_PER_ROUTE });
      }
      expectNoErrorLines(server);
    }, 240_000);
  }
});

function send(server: FuzzServer, route: Route, sent: string): Promise<Response> {
  const { baseUrl, rootKey } = server.keyward;
  const headers = { authorization: `Bearer ${rootKey}`, "content-type": "application/json" };
  if (route.verb === "GET") return fetch(`${baseUrl}${route.path}?${sent}`, { headers });
  return fetch(`${baseUrl}${route.path}`, { method: "POST", headers, body: sent });
}

/** A 400 says where: v2 lists `errors[].location` (`body...`/`query...`), v1 a message. */
function expectNamesThePlace(dialect: "v1" | "v2", body: any): void {
  if (dialect === "v2") {
    expect(body.error.errors.length).toBeGreaterThan(0);
    for (const entry of body.error.errors) expect(entry.location).toMatch(/^(body|query)/);
  } else {
    expect(body.error.code).toBe("BAD_REQUEST");
    expect(body.error.message.length).toBeGreaterThan(0);
  }
}

/** A query string of 1-3 of the route's parameters (and an unknown one) with hostile values, URL-encoded. */
function hostileQuery(route: Route, ids: string[]): fc.Arbitrary<string> {
  const names = [...route.operation.method.input.fields.map((f) => f.jsonName), "unknown"];
  const value = hostileValue(ids).map((v) => (typeof v === "string" ? v : toText(v)));
  return fc.array(fc.tuple(fc.constantFrom(...names), value), { minLength: 1, maxLength: 3 })
    .map((pairs) => pairs.map(([name, v]) => `${encodeURIComponent(name)}=${encodeWellFormed(v)}`).join("&"));
}

/** encodeURIComponent refuses lone surrogates; a client would send their UTF-8-less bytes as %ED%A0%80. */
function encodeWellFormed(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.split("").map((c) => (/[\ud800-\udfff]/.test(c) ? "%ED%A0%80" : encodeURIComponent(c))).join("");
  }
}
