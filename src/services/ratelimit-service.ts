import type { RatelimitService } from "../../gen/keyward/v1/ratelimits_pb.js";
import { notFound } from "../domain/errors.js";
import { newId } from "../domain/ids.js";
import type { RatelimitOverrideRecord } from "../store/ports/ratelimits.js";
import { listableIds, type ServiceHandlers } from "./context.js";
import { paginate } from "./pagination.js";
import { loadNamespaceFor, namespaceRefOf } from "./ratelimits/namespaces.js";
import { runLimits, type LimitDeps } from "./ratelimits/run-limits.js";

export type RatelimitServiceDeps = LimitDeps;

const overrideView = (o: RatelimitOverrideRecord) => ({
  overrideId: o.id,
  identifier: o.identifier,
  limit: BigInt(o.limit),
  duration: BigInt(o.duration),
});

/** ratelimit.*: standalone limits on any identifier, their namespaces, and the namespaces' per-identifier overrides. */
export function createRatelimitService(deps: RatelimitServiceDeps): ServiceHandlers<typeof RatelimitService> {
  const { documents, clock } = deps;

  return {
    async limit(request, call) {
      const { results } = await runLimits(deps, call, [request]);
      const result = results[0]!;
      return {
        limit: BigInt(result.limit),
        remaining: BigInt(result.remaining),
        reset: BigInt(result.reset),
        success: result.passed,
        overrideId: result.overrideId,
      };
    },

    async multiLimit(request, call) {
      const { passed, results } = await runLimits(deps, call, request.limits);
      return {
        passed,
        limits: results.map((r) => ({
          namespace: r.namespace,
          identifier: r.identifier,
          limit: BigInt(r.limit),
          remaining: BigInt(r.remaining),
          reset: BigInt(r.reset),
          passed: r.passed,
          overrideId: r.overrideId,
        })),
      };
    },

    async setOverride(request, { principal }) {
      const namespace = await loadNamespaceFor(deps, principal, namespaceRefOf(request), "set_override");
      const now = clock.now();
      const stored = await documents.ratelimitOverrides.set({
        id: newId("rlor", now, deps.randomBytes),
        workspaceId: principal.workspaceId,
        namespaceId: namespace.id,
        identifier: request.identifier,
        limit: Number(request.limit),
        duration: Number(request.duration),
        createdAt: now,
      });
      deps.limitCache.overridesChanged(namespace.id);
      return { overrideId: stored.id };
    },

    async getOverride(request, { principal }) {
      const namespace = await loadNamespaceFor(deps, principal, namespaceRefOf(request), "read_override");
      const override = await documents.ratelimitOverrides.get(principal.workspaceId, namespace.id, request.identifier);
      if (!override) throw notFound(`The namespace ${namespace.name} has no override for ${request.identifier}.`);
      return { override: overrideView(override) };
    },

    async listOverrides(request, { principal }) {
      const namespace = await loadNamespaceFor(deps, principal, namespaceRefOf(request), "read_override");
      const page = await paginate(request, (p) => documents.ratelimitOverrides.list(principal.workspaceId, namespace.id, p));
      const total = await documents.ratelimitOverrides.count(principal.workspaceId, namespace.id);
      return {
        data: page.items.map(overrideView),
        pagination: { cursor: page.cursor, hasMore: page.hasMore },
        total: BigInt(total),
      };
    },

    async listNamespaces(request, { principal }) {
      // A root key granted only some namespaces lists exactly those: the store narrows the page to their ids.
      const ids = listableIds(principal, "ratelimit", "read_namespace");
      const page = await paginate(request, (p) =>
        documents.ratelimitNamespaces.list(principal.workspaceId, { ...p, search: request.search, ids }));
      return {
        data: page.items.map((n) => ({ id: n.id, name: n.name, createdAt: BigInt(n.createdAt) })),
        pagination: { cursor: page.cursor, hasMore: page.hasMore },
      };
    },

    async deleteOverride(request, { principal }) {
      const namespace = await loadNamespaceFor(deps, principal, namespaceRefOf(request), "delete_override");
      if (!(await documents.ratelimitOverrides.delete(principal.workspaceId, namespace.id, request.identifier))) {
        throw notFound(`The namespace ${namespace.name} has no override for ${request.identifier}.`);
      }
      deps.limitCache.overridesChanged(namespace.id);
      return {};
    },
  };
}
