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
 * it reached deleted and the rest live, and repeating it finishes the job. Counts the keys this call deleted: keys
 * soft-deleted earlier are not listed, so `permanent` does not erase those; one that a concurrent call soft-deletes
 * after the listing is still erased (and counted) by a `permanent` call, as keys.deleteKey would erase it.
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
  let deleted = 0;
  let after: string | undefined;
  for (;;) {
    // Keyset paging over live keys: a key deleted here drops out of later pages, `after` keeps the place.
    const page = await deps.documents.keys.listByApi(principal.workspaceId, api.id, { limit: PAGE, after });
    for (const key of page) {
      if (await deleteKeyRecord(deps, key, { permanent, now: deps.clock.now() })) deleted += 1;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1].id;
  }
  return { deletedKeys: BigInt(deleted) };
}
