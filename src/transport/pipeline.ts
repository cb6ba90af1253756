import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import type { Path } from "@bufbuild/protobuf/reflect";
import { invalid, KeywardError } from "../domain/errors.js";
import { holdsActionAnywhere } from "../domain/permissions.js";
import type { CallContext, Principal, RequestOrigin } from "../services/context.js";
import type { Operation } from "../services/operation.js";
import type { Authenticate } from "./auth.js";
import { freeFormViolationsOf } from "./free-form-check.js";
import { fastCodecOf } from "./fast-codecs.js";
import type { CallDeadline } from "./call-deadline.js";

/** How a transport hands a request to the pipeline: decoding is deferred until the caller is authenticated. */
export interface Invocation {
  authorization: string | null | undefined;
  requestId: string;
  decode: () => MessageShape<DescMessage>;
  /** The request as the transport received it; handed on as is and read only by audited operations. */
  readonly origin?: RequestOrigin;
  /** The call's deadline from the transport's header; absent when it has none (REST never has one). */
  readonly deadline?: CallDeadline;
}

/**
 * The pipeline every transport runs: refuse a call whose deadline has passed → authenticate → check the action is
 * held at all → decode and validate → service. The service makes the resource-specific check once it knows the
 * resource; its writes pass the deadline's commit gate (`CallContext.commit`) before they commit.
 */
export function createPipeline(deps: { authenticate: Authenticate }) {

  // The handler's answer is returned as the init object it is: the Connect adapter makes the message, and REST
  // writes its JSON straight from it (rest-json.ts), which saves making a message on every REST request.
  // Not async: with the root key cached (most calls) the steps run at once and the handler's own promise is the
  // answer, with no frame of ours awaiting it; a step's refusal is thrown. Every entry awaits `invoke` inside its
  // try, where a throw and a rejection are the same.
  return function invoke(operation: Operation, invocation: Invocation): Answer | Promise<Answer> {
    const deadline = invocation.deadline;
    if (deadline !== undefined) deadline.refuseIfPassed();
    if (operation.access.public) return run(operation, invocation, undefined);
    const authenticated = deps.authenticate(invocation.authorization);
    if (authenticated instanceof Promise) return authenticated.then((principal) => authorized(operation, invocation, principal));
    return authorized(operation, invocation, authenticated);
  };
}

type Answer = MessageInitShape<DescMessage>;

function authorized(operation: Operation, invocation: Invocation, principal: Principal): Answer | Promise<Answer> {
  const { resourceType, action } = operation.access;
  if (!holdsActionAnywhere(principal.permissions, resourceType, action)) {
    throw new KeywardError("forbidden", `Missing permission: ${resourceType}.*.${action}`, {
      reason: "INSUFFICIENT_PERMISSIONS",
    });
  }
  return run(operation, invocation, principal);
}

/** Decode, validate, then the service; `principal` is undefined only for a public operation. */
function run(operation: Operation, invocation: Invocation, principal: Principal | undefined): Answer | Promise<Answer> {
  const request = invocation.decode();
  checkRequest(operation.method.input, request);
  const context: CallContext = {
    principal: principal as Principal, requestId: invocation.requestId, origin: invocation.origin, commit: invocation.deadline,
  };
  return operation.handler(request as never, context) as Answer | Promise<Answer>;
}

export type Invoke = ReturnType<typeof createPipeline>;

const validator = createValidator();

/**
 * A decoded request held to its proto's rules (protovalidate) and the free-form limits; `invalid` naming every
 * field otherwise. The pipeline's step, also for callers that reach a service in-process (the CLI's import).
 */
export function checkRequest(schema: DescMessage, request: object): void {
  // A generated check (protoc-gen-keyward-fast) passes only what protovalidate passes; anything else is asked of
  // protovalidate, which names the violations.
  if (fastCodecOf(schema)?.valid?.(request) !== true) checkRules(schema, request);
  const freeForm = freeFormViolationsOf(schema, request);
  if (freeForm.length > 0) throw invalid(freeForm.map((v) => `${v.location}: ${v.message}`).join("; "), [...freeForm]);
}

function checkRules(schema: DescMessage, request: object): void {
  const result = validator.validate(schema, request as never);
  if (result.kind === "error") throw result.error;
  if (result.kind === "invalid") {
    const violations = result.violations.map((v) => ({
      location: violationPath(v.field, "jsonName"),
      field: violationPath(v.field, "name"),
      message: v.message,
    }));
    throw invalid(violations.map((v) => `${v.location}: ${v.message}`).join("; "), violations);
  }
}

/** `permissions[0]`, `meta.plan`: the path of a violation in the request's JSON (or proto) field names. */
function violationPath(path: Path, naming: "jsonName" | "name"): string {
  let out = "";
  for (const item of path) {
    if (item.kind === "list_sub") out += `[${item.index}]`;
    else if (item.kind === "map_sub") out += `[${JSON.stringify(String(item.key))}]`;
    else if (item.kind === "field") out += (out ? "." : "") + item[naming];
    else out += (out ? "." : "") + item.name;
  }
  return out;
}
