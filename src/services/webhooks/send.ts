import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPublicAddress } from "../../domain/webhooks/address-policy.js";

/** Most bytes of a response body read: enough for an error message, never a receiver's whole page. */
export const RESPONSE_CAP_BYTES = 4096;
export const SEND_TIMEOUT_MS = 10_000;

/** The outcome of one POST: a status (any, 3xx included: redirects are not followed) or why there was none. */
export interface SendResult {
  status?: number;
  latencyMs: number;
  error?: string;
  /** The first RESPONSE_CAP_BYTES of the body, as text. */
  body?: string;
}

export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
}

/**
 * A DNS lookup that refuses non-public answers: it runs when the socket connects, so the address checked is the one
 * connected to (a name that resolves to a public address at validation and a private one later gains nothing). An
 * IP literal in the URL goes through it too.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) {
        return callback(new PrivateAddressError(`${hostname} resolves only to private or reserved addresses (KEYWARD_WEBHOOKS_ALLOW_PRIVATE is off)`), "", 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}

/** POSTs webhook messages through agents whose every connection passes `guardedLookup`. */
export function createSender(options: { allowPrivate: boolean; timeoutMs?: number }) {
  const lookup = guardedLookup(options.allowPrivate);
  const agents = {
    "http:": new HttpAgent({ keepAlive: true, lookup } as never),
    "https:": new HttpsAgent({ keepAlive: true, lookup } as never),
  };
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;

  function send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const target = new URL(url);
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) return Promise.resolve({ latencyMs: 0, error: `unsupported scheme ${target.protocol}` });
    // Node connects to an IP literal without any lookup: the guard has to judge it here.
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal) !== 0 && !options.allowPrivate && !isPublicAddress(literal)) {
      return Promise.resolve({ latencyMs: 0, error: `${literal} is a private or reserved address (KEYWARD_WEBHOOKS_ALLOW_PRIVATE is off)` });
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, "latencyMs">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: performance.now() - started });
      };
      const make = target.protocol === "https:" ? httpsRequest : httpRequest;
      const request = make(target, {
        method: "POST", agent, lookup,
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "Keyward-Webhooks/1" },
      } as never, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          if (size >= RESPONSE_CAP_BYTES) return;
          chunks.push(chunk.subarray(0, RESPONSE_CAP_BYTES - size));
          size += Math.min(chunk.length, RESPONSE_CAP_BYTES - size);
          // Enough read: the rest is not wanted, and the connection is not reused.
          if (size >= RESPONSE_CAP_BYTES) {
            finish({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8") });
            response.destroy();
          }
        });
        response.on("end", () => finish({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", () => finish({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
      });
      const timer = setTimeout(() => {
        finish({ error: `no answer within ${timeoutMs} ms` });
        request.destroy();
      }, timeoutMs);
      request.on("error", (error: Error) => finish({ error: error instanceof PrivateAddressError ? error.message : `request failed: ${error.message}` }));
      request.end(body);
    });
  }

  return {
    send,
    close(): void {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

export type Sender = ReturnType<typeof createSender>;
