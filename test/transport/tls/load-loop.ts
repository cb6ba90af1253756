import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { credentials } from "@grpc/grpc-js";
import { Agent } from "node:https";
import { grpcJsClient } from "../../support/grpc-js-client.js";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { httpsPost } from "./clients.js";

/** Counts of a load loop: requests answered 200 / OK, failed ones (with their first few reasons), and which
 * certificates the HTTP/1.1 keep-alive connections showed before and after `mark()`. */
export interface LoopResult {
  ok: number;
  failed: number;
  reasons: string[];
  keepAliveCertsBefore: Set<string>;
  keepAliveCertsAfter: Set<string>;
}

/**
 * Keeps requests going on open connections: REST v2 apis.getApi over an HTTP/1.1 keep-alive agent (2 sockets),
 * Connect getApi over one HTTP/2 session and gRPC getApi over one @grpc/grpc-js channel, all at once, round after
 * round, until `stop()` (or `maxRounds`). A reload that dropped a connection would show as failures.
 */
export function startLoadLoop(options: { baseUrl: string; ca: Buffer; rootKey: string; apiId: string; maxRounds?: number }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 2, ca: options.ca });
  const connect = createClient(ApisService, createConnectTransport({ baseUrl: options.baseUrl, httpVersion: "2", nodeOptions: { ca: options.ca } }));
  const port = new URL(options.baseUrl).port;
  // Named as the certificate names it (an IP address is no TLS server name).
  const grpc = grpcJsClient(ApisService, `127.0.0.1:${port}`, { "grpc.ssl_target_name_override": "localhost" }, credentials.createSsl(options.ca));
  const auth = { headers: { authorization: `Bearer ${options.rootKey}` } };
  const result: LoopResult = { ok: 0, failed: 0, reasons: [], keepAliveCertsBefore: new Set(), keepAliveCertsAfter: new Set() };
  let stopped = false;
  let marked = false;
  const fail = (reason: string) => {
    result.failed++;
    if (result.reasons.length < 5) result.reasons.push(reason);
  };
  const rest = async () => {
    try {
      const answer = await httpsPost(options.baseUrl, "/v2/apis.getApi", { apiId: options.apiId }, { ca: options.ca, agent, rootKey: options.rootKey });
      (marked ? result.keepAliveCertsAfter : result.keepAliveCertsBefore).add(answer.fingerprint256);
      if (answer.status === 200 && answer.body.data.id === options.apiId) result.ok++;
      else fail(`REST ${answer.status}`);
    } catch (error) {
      fail(`REST ${(error as Error).message}`);
    }
  };
  const rpc = async () => {
    try {
      const api = await connect.getApi({ apiId: options.apiId }, auth);
      if (api.id === options.apiId) result.ok++;
      else fail(`Connect answered ${api.id}`);
    } catch (error) {
      fail(`Connect ${(error as Error).message}`);
    }
  };
  const viaGrpc = async () => {
    const answer = await grpc.call("getApi", { apiId: options.apiId }, { rootKey: options.rootKey });
    if (answer.ok && answer.message.id === options.apiId) result.ok++;
    else fail(`gRPC ${answer.ok ? answer.message.id : answer.error.message}`);
  };
  const done = (async () => {
    for (let round = 0; !stopped && round < (options.maxRounds ?? 5_000); round++) {
      await Promise.all([rest(), rest(), rpc(), rpc(), viaGrpc()]);
    }
  })();
  return {
    /** Where "after" starts: requests from now on count towards keepAliveCertsAfter. */
    mark: () => void (marked = true),
    /** Answered requests so far. */
    answered: () => result.ok,
    async stop(): Promise<LoopResult> {
      stopped = true;
      await done;
      agent.destroy();
      grpc.close();
      return result;
    },
  };
}

/** Resolves once `condition()` holds, checking every 20 ms; rejects after `timeoutMs`. */
export async function eventually(condition: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
