import type { DeleteKeysRequest } from "../../../gen/keyward/v1/apis_pb.js";
import type { Clock } from "../../domain/clock.js";
import { KeywardError, notFound } from "../../domain/errors.js";
import { authorize, type Principal } from "../context.js";
import { deleteKeyRecord, type DeleteKeyDeps } from "./delete-key.js";

/** Keys read per page while deleting: bounds memory whatever the api's size. */
const PAGE = 100;

/**
 * apis.deleteKeys: deletes every live key of one api, each exactly as keys.deleteKey would (deleteKeyRecord: the
 * record, the cache entry, the balance), so each deletion is its own write and, through the audited documents, its
 * own key.delete record. Refused while the api's delete protection is on (precondition DELETE_PROTECTED, as
 * deleteApi), before anything is written. Not one transaction: a call cut short (deadline, outage) leaves the keys
 * it reached deleted and the rest live, and repeating it finishes the job. Soft: counts the live keys it deleted.
 * `permanent`: erases every record of the api, keys soft-deleted earlier too, and counts them all (as Unkey's
 * permanent delete counts every row it removes); a key soft-deleted by a concurrent call is erased by this one too.
 */
export async function deleteApiKeys(
  deps: DeleteKeyDeps & { clock: Clock },
  principal: Principal,
  request: Pick<DeleteKeysRequest, "apiId" | "permanent">,
): Promise<{ deletedKeys: bigint }> {
  authorize(principal, { resourceType: "api", action: "delete_key", resourceId: request.apiId });
  const api = await deps.documents.apis.get(principal.workspaceId, request.apiId);
  if (!api) throw notFound(`The api ${request.apiId} does not exist.`);
  if (api.deleteProtection) {
    throw new KeywardError("precondition", `The api ${api.id} is protected from deletion; its keys cannot be deleted in bulk.`, {
      reason: "DELETE_PROTECTED",
    });
  }
  const permanent = request.permanent ?? false;
  let deleted = await deleteEach(deps, principal.workspaceId, api.id, { permanent, alreadyDeleted: false });
  if (permanent) deleted += await deleteEach(deps, principal.workspaceId, api.id, { permanent, alreadyDeleted: true });
  return { deletedKeys: BigInt(deleted) };
}

/** Deletes the api's live keys (or, `alreadyDeleted`, its soft-deleted ones) page by page; answers how many it deleted. */
async function deleteEach(
  deps: DeleteKeyDeps & { clock: Clock },
  workspaceId: string,
  apiId: string,
  options: { permanent: boolean; alreadyDeleted: boolean },
): Promise<number> {
  let deleted = 0;
  let after: string | undefined;
  for (;;) {
    // Keyset paging: a key deleted here drops out of later pages, `after` keeps the place.
    const page = await deps.documents.keys.listByApi(workspaceId, apiId, { limit: PAGE, after, deleted: options.alreadyDeleted });
    for (const key of page) {
      if (await deleteKeyRecord(deps, key, { permanent: options.permanent, now: deps.clock.now() })) deleted += 1;
    }
    if (page.length < PAGE) return deleted;
    after = page[page.length - 1].id;
  }
}
