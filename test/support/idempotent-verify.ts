import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import { bearer, rpcTransports } from "./rpc.js";

/** Every door to verification: three REST dialects and the three RPC protocols. */
export const IDEMPOTENT_VIAS = ["v1", "v2", "legacy", "connect", "grpc", "grpcWeb"] as const;
export type IdempotentVia = (typeof IDEMPOTENT_VIAS)[number];

/** One verification as these tests look at it, or the error it was refused with (HTTP status and v1 code, or the RPC code's name, e.g. `FailedPrecondition`). */
export interface IdempotentAnswer {
  code?: string;
  valid?: boolean;
  credits?: number;
  error?: { status?: number; v1Code?: string; rpc?: string };
}

/**
 * A verification with an idempotency key sent the way `via` carries it: the `Idempotency-Key` header (gRPC
 * metadata) everywhere, or the request field (`inBody`) on v2 and RPC. `timeoutMs` sets an RPC deadline.
 */
export function idempotentVerifier(baseUrl: string, rootKey: string) {
  const transports = rpcTransports(baseUrl);
  const paths = { v1: "/v1/keys.verifyKey", v2: "/v2/keys.verifyKey", legacy: "/v1/keys/verify" };

  return async function verify(
    via: IdempotentVia,
    request: {
      key: string; cost?: number; idempotencyKey?: string; inBody?: boolean; tags?: string[]; timeoutMs?: number;
      /** RPC only: told the answer's request id. */
      onRequestId?: (requestId: string | null) => void;
    },
  ): Promise<IdempotentAnswer> {
    const { key, cost, idempotencyKey, inBody, tags } = request;
    const headers: Record<string, string> = {};
    if (idempotencyKey !== undefined && !inBody) headers["idempotency-key"] = idempotencyKey;
    if (via === "v1" || via === "v2" || via === "legacy") {
      const body: Record<string, unknown> = { key };
      if (tags) body.tags = tags;
      if (cost !== undefined) body[via === "v2" ? "credits" : "remaining"] = { cost };
      if (inBody) body.idempotencyKey = idempotencyKey;
      const response = await fetch(`${baseUrl}${paths[via]}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${rootKey}`, ...headers },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, any>;
      // v1 bodies carry a code; v2 ones a title and type (asserted where a test cares).
      if (response.status !== 200) return { error: via === "v2" ? { status: response.status } : { status: response.status, v1Code: json.error?.code } };
      const data = via === "v2" ? json.data : json;
      return { code: data.code, valid: data.valid, credits: via === "v2" ? data.credits : data.remaining };
    }
    const client = createClient(KeysService, transports[via]);
    try {
      const answer = await client.verifyKey(
        { key, tags, credits: cost === undefined ? undefined : { cost: BigInt(cost) }, idempotencyKey: inBody ? idempotencyKey : undefined },
        {
          headers: { ...bearer(rootKey).headers, ...headers }, timeoutMs: request.timeoutMs,
          onHeader: (answered) => request.onRequestId?.(answered.get("x-request-id")),
        },
      );
      return { code: answer.code, valid: answer.valid, credits: answer.credits === undefined ? undefined : Number(answer.credits) };
    } catch (error) {
      if (error instanceof ConnectError) return { error: { rpc: Code[error.code] } };
      throw error;
    }
  };
}
