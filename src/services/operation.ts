import { getOption, type DescMethodUnary, type DescService } from "@bufbuild/protobuf";
import { access } from "../../gen/keyward/v1/options_pb.js";
import type { CallContext } from "./context.js";

type AnyHandler = (request: never, context: CallContext) => Promise<unknown>;

/** One RPC with its access rule and handler: the unit every transport dispatches to. */
export interface Operation {
  method: DescMethodUnary;
  access: { public: boolean; resourceType: string; action: string };
  handler: AnyHandler;
}

/** Pairs each RPC of `service` with its handler and the `(keyward.v1.access)` option declared in the proto. */
export function operationsOf<S extends DescService>(service: S, handlers: object): Operation[] {
  return service.methods.map((method): Operation => {
    if (method.methodKind !== "unary") throw new Error(`${method.name}: only unary RPCs go through the pipeline`);
    const handler = (handlers as Record<string, AnyHandler>)[method.localName];
    if (!handler) throw new Error(`${service.typeName}.${method.name} has no handler`);
    const rule = getOption(method, access);
    if (!rule.public && (!rule.resourceType || !rule.action)) {
      throw new Error(`${service.typeName}.${method.name} declares no (keyward.v1.access)`);
    }
    return { method: method as DescMethodUnary, access: rule, handler };
  });
}
