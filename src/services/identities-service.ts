import type { IdentitiesService, UpdateIdentityRequest } from "../../gen/keyward/v1/identities_pb.js";
import { invalid, KeywardError, notFound } from "../domain/errors.js";
import { newId } from "../domain/ids.js";
import { UniqueViolationError } from "../store/errors.js";
import type { IdentityRecord } from "../store/ports/key-records.js";
import { authorize, type Principal, type ServiceHandlers } from "./context.js";
import { paginate } from "./pagination.js";
import { replaceWithRetry } from "./replace-with-retry.js";
import { moveCredits } from "./keys/identities.js";
import { checkedMeta, creditsConfig, ratelimitRecords } from "./keys/key-input.js";
import { identityBalanceOf, type KeysDeps } from "./keys/key-context.js";
import { planIdentityCredits, writeIdentityBalance } from "./identity-credits.js";
import { identityView } from "./keys/key-view.js";

/**
 * identities.*: create, read, list, update and soft-delete identities. Keys carry their identity in the key cache,
 * so every change to an identity drops the cache (identity changes are rare; verifications are not).
 */
export function createIdentitiesService(deps: KeysDeps): ServiceHandlers<typeof IdentitiesService> {
  const { documents, clock, cache } = deps;

  /**
   * A live identity of the caller's workspace named by the request (v2 `identity`: id first, then external id; v1
   * `identityId` or `externalId`), then the check of `identity.*.<action>` or `identity.<its id>.<action>`.
   */
  async function loadIdentityFor(principal: Principal, request: IdentityReference, action: string): Promise<IdentityRecord> {
    const { workspaceId } = principal;
    const { identity: either, identityId, externalId } = request;
    let identity: IdentityRecord | undefined;
    if (either !== undefined) {
      identity = (either.startsWith("id_") ? await documents.identities.get(workspaceId, either) : undefined)
        ?? (await documents.identities.findByExternalId(workspaceId, either));
    } else if (identityId !== undefined) {
      identity = await documents.identities.get(workspaceId, identityId);
    } else if (externalId !== undefined) {
      identity = await documents.identities.findByExternalId(workspaceId, externalId);
    } else {
      throw invalid("Name the identity: identity (its id or externalId), or v1's identityId or externalId.", [
        { location: "identity", message: "required" },
      ]);
    }
    if (!identity) throw notFound(`The identity ${either ?? identityId ?? externalId} does not exist.`);
    authorize(principal, { resourceType: "identity", action, resourceId: identity.id });
    return identity;
  }

  return {
    async createIdentity(request, { principal }) {
      authorize(principal, { resourceType: "identity", action: "create_identity" });
      const now = clock.now();
      const credits = creditsConfig(request.credits);
      const record: IdentityRecord = {
        id: newId("id", now, deps.randomBytes),
        workspaceId: principal.workspaceId,
        externalId: request.externalId,
        meta: nonEmpty(checkedMeta(request.meta)),
        ratelimits: ratelimitRecords(request.ratelimits, { now, randomBytes: deps.randomBytes }),
        credits: credits.config,
        createdAt: now,
      };
      if (record.meta === undefined) delete record.meta;
      if (record.credits === undefined) delete record.credits;
      // The balance first (its keys must find it once they can see the identity); a record that loses leaves none.
      await writeIdentityBalance(deps, record, credits.remaining);
      try {
        await documents.identities.insert(record);
      } catch (error) {
        if (credits.remaining !== undefined) await writeIdentityBalance(deps, record, null);
        if (!(error instanceof UniqueViolationError)) throw error;
        throw new KeywardError("conflict", `An identity with externalId ${request.externalId} already exists in this workspace.`);
      }
      return { identityId: record.id };
    },

    async getIdentity(request, { principal }) {
      const identity = await loadIdentityFor(principal, request, "read_identity");
      return { identity: identityView(identity, await identityBalanceOf(deps, identity)) };
    },

    async listIdentities(request, { principal }) {
      authorize(principal, { resourceType: "identity", action: "read_identity" });
      const { workspaceId } = principal;
      // Unkey v2 treats an empty search as no filter.
      const search = request.search || undefined;
      const page = await paginate(request, (p) =>
        search === undefined ? documents.identities.list(workspaceId, p) : documents.identities.search(workspaceId, search, p));
      const total = search === undefined ? await documents.identities.count(workspaceId) : await documents.identities.countMatching(workspaceId, search);
      const data = [];
      for (const identity of page.items) data.push(identityView(identity, await identityBalanceOf(deps, identity)));
      return { data, pagination: { cursor: page.cursor, hasMore: page.hasMore }, total: BigInt(total) };
    },

    async updateIdentity(request, { principal }) {
      const identity = await loadIdentityFor(principal, request, "update_identity");
      let remaining: number | null | undefined;
      const next = await replaceWithRetry({
        read: identity,
        reload: () => documents.identities.get(principal.workspaceId, identity.id),
        change: (current) => {
          const changed = applyUpdate(current, request);
          remaining = changed.remaining;
          return changed.record;
        },
        replace: (record) => documents.identities.replace(record),
        subject: `The identity ${identity.id}`,
      });
      if (!next) throw notFound(`The identity ${identity.id} does not exist.`);
      await writeIdentityBalance(deps, next, remaining); // after the record that won
      cache.invalidate({ kind: "all" });
      return { identity: identityView(next, await identityBalanceOf(deps, next)) };
    },

    async deleteIdentity(request, { principal }) {
      const identity = await loadIdentityFor(principal, request, "delete_identity");
      // One conditional write deletes the identity and unlinks its keys: of concurrent deletes exactly one gets the
      // keys, the others have written nothing and answer 404. Each unlinked key then verifies on its own limits, and
      // its balance follows it from the identity's counter tag to its own.
      const unlinked = await documents.identities.markDeleted(principal.workspaceId, identity.id, clock.now());
      if (unlinked === false) throw notFound(`The identity ${identity.id} does not exist.`);
      cache.invalidate({ kind: "all" });
      for (const key of unlinked) await moveCredits(deps, key, undefined);
      if (identity.credits) await writeIdentityBalance(deps, identity, null);
      return {};
    },
  };

  /**
   * AIP-134 over meta, ratelimits and credits; every input is checked before anything is written. `remaining` is the
   * balance to write once the record is stored (null: drop it; undefined: keep it).
   */
  function applyUpdate(identity: IdentityRecord, request: UpdateIdentityRequest): { record: IdentityRecord; remaining: number | null | undefined } {
    const now = clock.now();
    // A refill is one rule: a path inside it (REST derives `credits.refill.amount` from a nested body) names all of it.
    const paths = new Set((request.updateMask?.paths.length ? request.updateMask.paths : presentFields(request))
      .map((path) => (path.startsWith("credits.refill.") ? "credits.refill" : path)));
    const next: IdentityRecord = { ...identity, updatedAt: now };
    const credits = planIdentityCredits(identity.credits, request.credits, paths);
    if (credits.rule) next.credits = credits.rule;
    else delete next.credits;
    for (const path of paths) {
      switch (path) {
        case "credits": case "credits.remaining": case "credits.refill": break; // planned above, once
        case "meta": next.meta = nonEmpty(checkedMeta(request.meta)); break;
        case "ratelimits": next.ratelimits = keepIds(identity, ratelimitRecords(request.ratelimits, { now, randomBytes: deps.randomBytes })); break;
        case "identity": case "identity_id": case "external_id": break; // name the identity, change nothing
        default: throw invalid(`Cannot update ${path}.`, [{ location: "updateMask", message: `unknown field ${path}` }]);
      }
    }
    if (next.meta === undefined) delete next.meta;
    return { record: next, remaining: credits.remaining };
  }
}

interface IdentityReference {
  identity?: string;
  identityId?: string;
  externalId?: string;
}

function presentFields(request: UpdateIdentityRequest): string[] {
  return [
    ...(request.meta !== undefined ? ["meta"] : []),
    ...(request.ratelimits.length > 0 ? ["ratelimits"] : []),
    ...(request.credits !== undefined ? ["credits"] : []),
  ];
}

/** An empty object clears the metadata: stored as absent. */
function nonEmpty(meta: Record<string, unknown> | undefined) {
  return meta && Object.keys(meta).length > 0 ? meta : undefined;
}

/** A limit that keeps its name keeps its id, so callers can follow it across updates. */
function keepIds(identity: IdentityRecord, limits: IdentityRecord["ratelimits"]) {
  const ids = new Map(identity.ratelimits.map((limit) => [limit.name, limit.id]));
  return limits.map((limit) => ({ ...limit, id: ids.get(limit.name) ?? limit.id }));
}
