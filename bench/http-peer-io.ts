/** The request and answer plumbing the node:http peers share, written as a user would: buffer, parse, stringify. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Answers `status` with `value` as JSON. */
export function reply(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The parsed JSON object of a POST to /v2/keys.verifyKey, or undefined once it has answered 404 (another route) or
 * 400 (a body that is not a JSON object).
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
  if (req.method !== "POST" || req.url !== "/v2/keys.verifyKey") {
    req.resume();
    reply(res, 404, { error: { code: "NOT_FOUND" } });
    return undefined;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  reply(res, 400, { error: { code: "BAD_REQUEST", detail: "the body must be a JSON object" } });
  return undefined;
}
