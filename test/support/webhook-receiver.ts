import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request the receiver got, and which of its secrets verified it (standardwebhooks' own `verify`). */
export interface Received {
  id: string;
  type: string;
  data: any;
  headers: IncomingHttpHeaders;
  body: string;
  /** Indexes in `secrets` of the secrets whose verification passed. */
  verifiedBy: number[];
}

/**
 * A real HTTP endpoint on 127.0.0.1 that verifies every request with the `standardwebhooks` npm library against the
 * secrets it is given, records it, and answers `respond()`'s status (200 by default; set it to make deliveries fail).
 */
export async function startReceiver() {
  return startReceiverOn(0);
}

/** The same receiver on a given port (a test that wants the endpoint down at first, then up at a known address). */
export async function startReceiverOn(listenPort: number) {
  const received: Received[] = [];
  const state = { secrets: [] as string[], respond: (_r: Received): number => 200 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const verifiedBy = state.secrets.flatMap((secret, i) => {
        try {
          new Webhook(secret).verify(body, request.headers as Record<string, string>);
          return [i];
        } catch {
          return [];
        }
      });
      const parsed = JSON.parse(body);
      const entry: Received = { id: String(request.headers["webhook-id"]), type: parsed.type, data: parsed.data, headers: request.headers, body, verifiedBy };
      received.push(entry);
      response.writeHead(state.respond(entry)).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    state,
    /** Received messages of `type`, each counted once per webhook-id. */
    distinct: (type?: string) => [...new Map(received.filter((r) => type === undefined || r.type === type).map((r) => [r.id, r])).values()],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
