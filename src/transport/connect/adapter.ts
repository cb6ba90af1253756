import type { DescService } from "@bufbuild/protobuf";
import {
  ConnectError, createContextKey, createContextValues, type ConnectRouter, type ContextValues, type HandlerContext, type Interceptor,
} from "@connectrpc/connect";
import type { RequestDone } from "../../observability/request-observer.js";
import type { RequestTallies, TransportName } from "../../observability/route-tally.js";
import type { RequestOrigin } from "../../services/context.js";
import { CallDeadline } from "../call-deadline.js";
import { checkBinaryBodies } from "./adapter-check.js";
import type { Operation } from "../../services/operation.js";
import type { Invoke } from "../pipeline.js";
import { newRequestId, REQUEST_ID_HEADER } from "../request-id.js";
import { rpcFailureOf, toConnectError } from "../rpc-error.js";

const REQUEST_ID = createContextKey<string | undefined>(undefined, { description: "the request id of this RPC" });
const SOCKET = createContextKey<RequestOrigin["socket"]>(undefined, { description: "the connection the RPC came on" });
const assigned = new WeakMap<object, string>();

/**
 * Gives an RPC request its id and `x-request-id` header before the Connect adapter sees it, so that failures the
 * adapter raises before any handler runs (oversized or undecodable messages) and the health service carry one too.
 */
export function assignRequestId(req: object, res: { setHeader(name: string, value: string): unknown }): void {
  const requestId = newRequestId();
  assigned.set(req, requestId);
  res.setHeader(REQUEST_ID_HEADER, requestId);
}

/**
 * The Connect adapter's `contextValues`: hands the id `assignRequestId` gave the request, and the connection for
 * the audit log's peer address, to its handler.
 */
export function requestValues(req: { socket?: RequestOrigin["socket"] }): ContextValues {
  return createContextValues().set(REQUEST_ID, assigned.get(req)).set(SOCKET, req.socket);
}

/**
 * Registers every operation on a Connect router (serving Connect, gRPC and gRPC-Web): each RPC runs the shared
 * pipeline and maps failures to the matching code, with the request id in the response headers. The request's
 * deadline goes to the pipeline; connect-node answers with the handler's result, never early, so the deadline
 * acts only through the pipeline's refusal and the commit gate.
 */
export function registerOperations(
  router: ConnectRouter,
  services: DescService[],
  operations: Operation[],
  options: { invoke: Invoke; maxBytes: number },
) {
  const { invoke } = options;
  for (const service of services) {
    const impl: Record<string, (request: unknown, context: HandlerContext) => Promise<unknown>> = {};
    for (const operation of operations.filter((op) => op.method.parent === service)) {
      impl[operation.method.localName] = async (request, context) => {
        const requestId = context.values.get(REQUEST_ID) ?? newRequestId();
        context.responseHeader.set(REQUEST_ID_HEADER, requestId);
        const timeoutMs = context.timeoutMs();
        try {
          return await invoke(operation, {
            authorization: context.requestHeader.get("authorization"),
            requestId,
            decode: () => request as never,
            origin: originOf(context),
            deadline: timeoutMs === undefined ? undefined : new CallDeadline(timeoutMs),
          });
        } catch (error) {
          throw toConnectError(rpcFailureOf(error), error);
        }
      };
    }
    const before = router.handlers.length;
    router.service(service, impl as never);
    // Its binary messages are checked as Keyward's own paths check theirs (connect/adapter-check.ts).
    for (let i = before; i < router.handlers.length; i++) {
      router.handlers[i] = checkBinaryBodies(router.handlers[i], router.handlers[i].method.input, options.maxBytes);
    }
  }
}

/**
 * Where a call connect-node serves came from: its connection (handed over through contextValues) and the headers the
 * audit log (user agent), IP allow-lists (forwarding headers, trusted only from KEYWARD_TRUSTED_PROXIES) and retry-safe
 * verification (idempotency key) read.
 */
function originOf(context: HandlerContext): RequestOrigin {
  const header = (name: string) => context.requestHeader.get(name) ?? undefined;
  return {
    headers: {
      "user-agent": header("user-agent"), forwarded: header("forwarded"), "x-forwarded-for": header("x-forwarded-for"),
      "idempotency-key": header("idempotency-key"),
    },
    socket: context.values.get(SOCKET),
  };
}

/**
 * Reports every call connect-node serves (gRPC-Web; Connect calls the lean path leaves to it; health and reflection)
 * to `done`, by the protocol its content type names. Calls connect-node refuses before any handler runs (an
 * undecodable or oversized message) are not seen here.
 */
export function observeCalls(tallies: RequestTallies, done: RequestDone): Interceptor {
  return (next) => async (req) => {
    const startedAt = performance.now();
    const tally = tallies.of(transportOf(req.header.get("content-type")), req.method);
    const requestId = req.contextValues.get(REQUEST_ID);
    try {
      const res = await next(req);
      done(tally, 0, startedAt, requestId);
      return res;
    } catch (error) {
      const connectError = ConnectError.from(error);
      done(tally, connectError.code, startedAt, requestId, connectError.cause ?? error);
      throw error;
    }
  };
}

function transportOf(contentType: string | null): TransportName {
  if (contentType?.startsWith("application/grpc-web")) return "grpc-web";
  return contentType?.startsWith("application/grpc") ? "grpc" : "connect";
}
