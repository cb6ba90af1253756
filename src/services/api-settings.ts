import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetApiResponseSchema, UpdateApiRequest } from "../../gen/keyward/v1/apis_pb.js";
import { invalid } from "../domain/errors.js";
import { parseAddressRanges } from "../domain/ip-allow-list.js";
import type { ApiRecord } from "../store/ports/apis.js";

/** The byte length of new keys when neither createKey nor the api names one (DESIGN.md §3 Key material). */
export const DEFAULT_KEY_BYTES = 16;

/** An api with its settings, as getApi and updateApi answer it. */
export function apiView(api: ApiRecord) {
  const view = {
    id: api.id,
    name: api.name,
    workspaceId: api.workspaceId,
    ipWhitelist: api.ipWhitelist ?? [],
    deleteProtection: api.deleteProtection,
    storeEncryptedKeys: api.storeEncryptedKeys,
    defaultPrefix: api.defaultPrefix,
    defaultBytes: api.defaultBytes ?? DEFAULT_KEY_BYTES,
  };
  return view satisfies MessageInitShape<typeof GetApiResponseSchema>;
}

/**
 * The api after an update (AIP-134, as updateKey and updateIdentity): a listed field takes the request's value, or
 * is cleared when unset there (REST lists every field of the body and clears those sent as null); without a mask,
 * every field set in the request. Clearing resets a setting to what a new api has (no allow-list, no protection, no
 * stored keys, no prefix, 16 bytes); the name cannot be cleared. Every allow-list entry must be an IPv4 or IPv6
 * address or CIDR range: a 400 names the first that is not, and nothing is written.
 */
export function applyApiUpdate(api: ApiRecord, request: UpdateApiRequest, now: number): ApiRecord {
  const paths = request.updateMask?.paths.length ? request.updateMask.paths : presentFields(request);
  const next: ApiRecord = { ...api, updatedAt: now };
  for (const path of paths) {
    switch (path) {
      case "name":
        if (request.name === undefined) throw invalid("The name cannot be cleared.", [{ location: "name", message: "cannot be cleared" }]);
        next.name = request.name;
        break;
      case "ip_whitelist": next.ipWhitelist = checkedAllowList(request.ipWhitelist); break;
      case "delete_protection": next.deleteProtection = request.deleteProtection ?? false; break;
      case "store_encrypted_keys": next.storeEncryptedKeys = request.storeEncryptedKeys ?? false; break;
      case "default_prefix": next.defaultPrefix = request.defaultPrefix; break;
      case "default_bytes": next.defaultBytes = request.defaultBytes; break;
      case "api_id": break; // names the api, changes nothing
      default: throw invalid(`Cannot update ${path}.`, [{ location: "updateMask", message: `unknown field ${path}` }]);
    }
  }
  for (const field of ["ipWhitelist", "defaultPrefix", "defaultBytes"] as const) {
    if (next[field] === undefined) delete next[field];
  }
  return next;
}

/** Without a mask: the fields the request sets (an empty list cannot be told from an absent one; clear it by mask). */
function presentFields(request: UpdateApiRequest): string[] {
  const paths: string[] = [];
  if (request.name !== undefined) paths.push("name");
  if (request.ipWhitelist.length > 0) paths.push("ip_whitelist");
  if (request.deleteProtection !== undefined) paths.push("delete_protection");
  if (request.storeEncryptedKeys !== undefined) paths.push("store_encrypted_keys");
  if (request.defaultPrefix !== undefined) paths.push("default_prefix");
  if (request.defaultBytes !== undefined) paths.push("default_bytes");
  return paths;
}

/** The entries as given, once each parses; an empty list is stored as none. */
function checkedAllowList(entries: readonly string[]): string[] | undefined {
  const parsed = parseAddressRanges(entries);
  if ("error" in parsed) {
    const { index, entry } = parsed.error;
    const message = `${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR range`;
    throw invalid(`ipWhitelist[${index}]: ${message}.`, [{ location: `ipWhitelist[${index}]`, message }]);
  }
  return entries.length > 0 ? [...entries] : undefined;
}
