import type { DescService } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import type { RequestDone } from "../observability/request-observer.js";
import type { RequestTallies } from "../observability/route-tally.js";
import type { Operation } from "../services/operation.js";
import { observeCalls, registerOperations, requestValues } from "./connect/adapter.js";
import { createConnectUnaryHandler } from "./connect/handler.js";
import { createDispatch, type Entries } from "./dispatch.js";
import { createGrpcHandler } from "./grpc/handler.js";
import { registerHealth } from "./health.js";
import type { Invoke } from "./pipeline.js";
import { REFLECTION_SERVICES, registerReflection } from "./reflection.js";
import { loadOpenApiDocuments } from "./rest/documents.js";
import { createRestHandler, MAX_BODY_BYTES } from "./rest/handler.js";
import { routesOf } from "./rest/routes.js";
import { rpcPathOf } from "./unary-call.js";

/**
 * Every protocol of the port over one set of operations and one pipeline, behind the one dispatch (dispatch.ts):
 * REST from the proto's HTTP bindings; Connect unary and gRPC unary on their lean paths; connect-node for the rest
 * (gRPC-Web, compressed and GET Connect calls, health and reflection streams). `mounted` are the app's own entries
 * beside the protocols (the dashboard, /metrics).
 */
export function createProtocols(options: {
  services: DescService[];
  operations: Operation[];
  invoke: Invoke;
  /** Readiness for the health service. */
  ready: () => Promise<boolean>;
  docsUrl: string;
  tallies: RequestTallies;
  done: RequestDone;
  mounted: Pick<Entries, "dashboard" | "wantsDashboard" | "metrics">;
}) {
  const { operations, invoke, tallies, done } = options;
  const maxBytes = MAX_BODY_BYTES;
  const rest = createRestHandler({ routes: routesOf(operations), invoke, docsUrl: options.docsUrl, tallies, done, documents: loadOpenApiDocuments() });
  const connectNode = connectNodeAdapter({
    routes(router) {
      registerOperations(router, options.services, operations, { invoke, maxBytes });
      registerHealth(router, { services: options.services.map((s) => s.typeName), ready: options.ready });
      registerReflection(router, [...options.services, Health]);
    },
    readMaxBytes: maxBytes,
    contextValues: requestValues,
    interceptors: [observeCalls(tallies, done)],
    fallback: (req, res) => void rest(req, res),
  });
  const connectUnary = createConnectUnaryHandler({ operations, invoke, maxBytes, tallies, done });
  // gRPC over HTTP/2 takes the lean unary path; connect-node keeps health and reflection (streaming RPCs).
  const grpc = createGrpcHandler({
    operations,
    invoke,
    passThrough: new Set([Health, ...REFLECTION_SERVICES].flatMap((s) => s.methods.map(rpcPathOf))),
    maxBytes,
    tallies,
    done,
  });
  const { handler, stream } = createDispatch({ ...options.mounted, rest, connectUnary, grpc, connectNode });
  return { handler, stream, restRoutes: rest.served };
}
