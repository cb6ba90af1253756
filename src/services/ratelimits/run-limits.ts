import type { MessageShape } from "@bufbuild/protobuf";
import type { LimitRequestSchema } from "../../../gen/keyward/v1/ratelimits_pb.js";
import { invalid } from "../../domain/errors.js";
import { selectOverride } from "../../domain/override-match.js";
import type { CounterStore, LimitCheck } from "../../store/ports/counters.js";
import type { VerificationEventStore } from "../../store/ports/events.js";
import { ratelimitEventRecord } from "../../store/ratelimit-events.js";
import type { CallContext } from "../context.js";
import { withCounters } from "../keys/key-context.js";
import { namespacesForLimit, type NamespaceDeps } from "./namespaces.js";
import type { UsageSignals } from "../webhooks/usage-signals.js";

export interface LimitDeps extends NamespaceDeps {
  counters: CounterStore;
  /** Where each check is recorded for analytics (a queue push: no I/O on the limit path); none when absent. */
  events?: VerificationEventStore;
  /** Webhook `ratelimit.exceeded` on a refused check (in-memory, never awaited). */
  usageSignals?: Pick<UsageSignals, "ratelimitRefused">;
}

export interface CheckResult {
  namespace: string;
  identifier: string;
  limit: number;
  remaining: number;
  reset: number;
  passed: boolean;
  overrideId?: string;
}

/**
 * Standalone counter tag: one per workspace. A multiLimit may span any namespaces and identifiers and must be all
 * or nothing, which on Redis Cluster means one Lua script in one slot; and a limit call must count in the same
 * buckets as a multiLimit naming the same identifier. A per-workspace tag gives both; the cost is that one
 * workspace's standalone limits live on one Cluster shard (verification counters are spread per key/identity).
 */
export function standaloneTag(workspaceId: string): string {
  return `rl/${workspaceId}`;
}

/** The bucket of (namespace, identifier); namespace ids hold no `:`, so the pair is unambiguous. */
export function standaloneBucket(namespaceId: string, identifier: string): string {
  return `ns:${namespaceId}:${identifier}`;
}

/**
 * Judges `checks` as one all-or-nothing step: namespaces resolved (created on first use) and authorized, each
 * identifier's override applied (exact beats pattern), then one `consume` — counted only when every check passes.
 * Results in request order; counter failures are 503. Each check is queued as a rate-limit event once judged.
 */
export async function runLimits(
  deps: LimitDeps,
  call: CallContext,
  checks: readonly MessageShape<typeof LimitRequestSchema>[],
): Promise<{ passed: boolean; results: CheckResult[] }> {
  // One bucket twice in a step would be judged twice against the same count and could over-admit.
  refuseRepeats(checks, (check) => JSON.stringify([check.namespace, check.identifier]));
  const { principal } = call;
  const namespaces = await namespacesForLimit(deps, call, checks.map((c) => c.namespace));
  // A namespace named once by name and once by id: both refs existed, so nothing was created for them.
  refuseRepeats(checks, (check) => standaloneBucket(namespaces.get(check.namespace)!.id, check.identifier));
  const planned = await Promise.all(
    checks.map(async (check) => {
      const namespace = namespaces.get(check.namespace)!;
      const candidates = await deps.limitCache.overrideCandidates(namespace.id, check.identifier, () =>
        deps.documents.ratelimitOverrides.candidates(principal.workspaceId, namespace.id, check.identifier));
      const override = selectOverride(check.identifier, candidates);
      const limit: LimitCheck = {
        bucket: standaloneBucket(namespace.id, check.identifier),
        limit: override ? override.limit : Number(check.limit),
        duration: override ? override.duration : Number(check.duration),
        cost: check.cost === undefined ? 1 : Number(check.cost),
      };
      return { check, limit, overrideId: override?.id };
    }),
  );
  const now = deps.clock.now();
  // The consume is the call's write: past its deadline it is not made (a namespace created above passed the gate).
  call.commit?.beginCommit();
  const result = await withCounters(() =>
    deps.counters.consume({ tag: standaloneTag(principal.workspaceId), now, limits: planned.map((p) => p.limit) }),
  );
  const passed = result.outcome === "VALID";
  const results = planned.map(({ check, limit, overrideId }, i): CheckResult => {
    const judged = result.limits[i]!;
    return {
      namespace: check.namespace,
      identifier: check.identifier,
      limit: limit.limit,
      remaining: judged.remaining,
      reset: judged.reset,
      passed: !judged.exceeded,
      overrideId,
    };
  });
  // One event per check; passed means its tokens were taken, so every check of a refused multiLimit is blocked.
  planned.forEach(({ check, limit }) => deps.events?.record(ratelimitEventRecord({
    time: now, workspaceId: principal.workspaceId, namespaceId: namespaces.get(check.namespace)!.id, identifier: check.identifier,
    passed, cost: limit.cost, requestId: call.requestId,
  })));
  if (!passed && deps.usageSignals) {
    planned.forEach(({ check, limit }, i) => {
      if (!result.limits[i]!.exceeded) return;
      const namespace = namespaces.get(check.namespace)!;
      deps.usageSignals!.ratelimitRefused({
        workspaceId: principal.workspaceId, namespaceId: namespace.id, namespace: namespace.name, identifier: check.identifier,
        limit: limit.limit, duration: limit.duration, reset: result.limits[i]!.reset, now,
      });
    });
  }
  return { passed, results };
}

function refuseRepeats(checks: readonly { namespace: string; identifier: string }[], keyOf: (check: { namespace: string; identifier: string }) => string): void {
  const seen = new Set<string>();
  checks.forEach((check, i) => {
    const key = keyOf(check);
    if (seen.has(key)) {
      throw invalid(`limits[${i}] repeats namespace ${check.namespace} with identifier ${check.identifier}; send each pair once.`, [
        { location: `limits[${i}]`, message: "duplicate namespace and identifier" },
      ]);
    }
    seen.add(key);
  });
}
