import type { DescMethod } from "@bufbuild/protobuf";
import type { RequestDone } from "../observability/request-observer.js";
import type { RouteTally } from "../observability/route-tally.js";
import type { Operation } from "../services/operation.js";
import { CallDeadline, MAX_TIMER_MS } from "./call-deadline.js";
import { newRequestId } from "./request-id.js";

/** `/package.Service/Method`: the path of an RPC on every RPC protocol. */
export const rpcPathOf = (method: Pick<DescMethod, "name" | "parent">): string => `/${method.parent.typeName}/${method.name}`;

/** The operations by RPC path: the lookup every RPC entry starts with. */
export function operationsByPath(operations: readonly Operation[]): Map<string, Operation> {
  return new Map(operations.map((op) => [rpcPathOf(op.method), op]));
}

/**
 * The steps every call takes whatever its entry (REST, Connect, gRPC, the dashboard), written once: a request id and
 * start time, the deadline from the protocol's header with its timer (RPC protocols only; REST has none), and an
 * answer that goes out once (result, failure or deadline, whichever comes first) and is reported once to metrics and
 * the request log. An entry's call extends it with its own decoding and encoding; the class keeps the per-call cost
 * at one object (no closures).
 */
export class UnaryCall {
  readonly requestId = newRequestId();
  protected readonly startedAt = performance.now();
  deadline: CallDeadline | undefined;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  /** Starts the deadline `ms` from now; past it, `deadlineExpired` answers unless the call has begun committing. */
  protected armDeadline(ms: number): void {
    this.deadline = new CallDeadline(ms);
    if (ms <= MAX_TIMER_MS) this.timer = setTimeout(onDeadline, ms, this, ms);
  }

  /** The protocol's DEADLINE_EXCEEDED answer; every entry that arms a deadline gives its own. */
  deadlineExpired(_ms: number): void {}

  /**
   * True exactly once: stops the deadline's timer and reports the answer (`code`: the RPC code, 0 = OK, or the HTTP
   * status) under `tally`.
   */
  finishOnce(tally: RouteTally, done: RequestDone, code: number, cause?: unknown): boolean {
    if (this.finished) return false;
    this.finished = true;
    clearTimeout(this.timer);
    done(tally, code, this.startedAt, this.requestId, cause);
    return true;
  }
}

function onDeadline(call: UnaryCall, ms: number): void {
  if ((call.deadline as CallDeadline).expire()) call.deadlineExpired(ms);
}
