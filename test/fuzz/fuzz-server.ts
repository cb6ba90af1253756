import { expect } from "vitest";
import { createLogger } from "../../src/observability/logger.js";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { restClient } from "../support/rest.js";
import { watchWrites } from "../support/store-watch.js";

/** A server for a fuzz suite: its log lines kept for reading, its writes recorded, and real resources to aim at. */
export interface FuzzServer {
  keyward: RunningKeyward;
  /** Every log line, parsed. */
  lines: Array<{ level: number; msg: string; err?: unknown }>;
  writes: ReturnType<typeof watchWrites>;
  /** Ids of live resources, which generated bodies name now and then so that a wrongly accepted body could hit one. */
  ids: string[];
  /** Requests sent and answers seen, by "<transport> <route>": what the closing summary prints. */
  tally: Map<string, { requests: number; serverErrors: number; changes: number }>;
}

export async function startFuzzServer(): Promise<FuzzServer> {
  const lines: FuzzServer["lines"] = [];
  const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  const keyward = await startKeyward({ logger });
  const rest = restClient(keyward.baseUrl);
  const root = keyward.rootKey;
  const apiId = (await rest.v2("apis.createApi", { name: "fuzz" }, root)).body.data.apiId as string;
  const key = (await rest.v2("keys.createKey", { apiId, externalId: "fuzz-owner", credits: { remaining: 100 } }, root)).body.data;
  const identity = (await rest.v2("identities.getIdentity", { identity: "fuzz-owner" }, root)).body.data;
  await rest.v2("permissions.createPermission", { name: "fuzz.read", slug: "fuzz.read" }, root);
  await rest.v2("permissions.createRole", { name: "fuzz-role" }, root);
  await rest.v2("ratelimit.limit", { namespace: "fuzz-ns", identifier: "someone", limit: 10, duration: 60_000 }, root);
  const ids = [apiId, key.keyId, key.key, identity.id, "fuzz-owner", "fuzz.read", "fuzz-role", "fuzz-ns"];
  return { keyward, lines, writes: watchWrites(keyward.documents), ids, tally: new Map() };
}

/**
 * Records one answer under `label` and checks what every answer to hostile input must hold: no server failure, and
 * a refused request (anything but OK) wrote nothing.
 */
export function expectClientAnswer(server: FuzzServer, label: string, answer: { ok: boolean; serverError: boolean; what: string }): void {
  const entry = server.tally.get(label) ?? { requests: 0, serverErrors: 0, changes: 0 };
  server.tally.set(label, entry);
  entry.requests++;
  const changed = !answer.ok && server.writes.writes.length > 0;
  if (answer.serverError) entry.serverErrors++;
  if (changed) entry.changes++;
  expect(answer.serverError, `${label}: server failure for ${answer.what}`).toBe(false);
  expect(changed ? server.writes.writes : [], `${label}: refused yet wrote, for ${answer.what}`).toEqual([]);
}

/** No line at error level (a stack trace) in the whole run: every answer above was a client's failure. */
export function expectNoErrorLines(server: FuzzServer): void {
  expect(server.lines.filter((line) => line.level >= 50).slice(0, 3)).toEqual([]);
}

/** The per-transport counts, for the closing note: requests, 5xx and changes. */
export function printSummary(title: string, server: FuzzServer): void {
  const byTransport = new Map<string, { routes: number; requests: number; serverErrors: number; changes: number }>();
  for (const [label, entry] of server.tally) {
    const transport = label.split(" ", 1)[0];
    const sum = byTransport.get(transport) ?? { routes: 0, requests: 0, serverErrors: 0, changes: 0 };
    sum.routes++;
    sum.requests += entry.requests;
    sum.serverErrors += entry.serverErrors;
    sum.changes += entry.changes;
    byTransport.set(transport, sum);
  }
  const rows = [...byTransport].map(([transport, s]) =>
    `${transport}: ${s.routes} routes, ${s.requests} requests (${Math.round(s.requests / s.routes)} per route), 5xx ${s.serverErrors}, changes ${s.changes}`);
  console.log(`${title}\n  ${rows.join("\n  ")}`);
}
