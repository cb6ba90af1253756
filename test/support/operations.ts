import { fromJson, type DescMessage, type DescService, type JsonValue } from "@bufbuild/protobuf";
import { ConnectError, type Transport } from "@connectrpc/connect";
import { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import { IdentitiesService } from "../../gen/keyward/v1/identities_pb.js";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import { PermissionsService } from "../../gen/keyward/v1/permissions_pb.js";
import { RootKeysService } from "../../gen/keyward/v1/root_keys_pb.js";
import { WorkspacesService } from "../../gen/keyward/v1/workspaces_pb.js";
import { RatelimitService } from "../../gen/keyward/v1/ratelimits_pb.js";
import type { RestResponse } from "./rest.js";
import { rpcClient, rpcTransports } from "./rpc.js";

/** The management operations served on every transport, by their REST name. */
export type OperationName =
  | "identities.createIdentity" | "identities.getIdentity" | "identities.listIdentities" | "identities.updateIdentity" | "identities.deleteIdentity"
  | "apis.createApi" | "apis.getApi" | "apis.deleteApi" | "apis.listKeys" | "apis.listApis" | "apis.deleteKeys" | "apis.updateApi"
  | "rootKeys.createRootKey" | "rootKeys.listRootKeys" | "rootKeys.deleteRootKey"
  | "workspaces.createWorkspace"
  | "keys.createKey" | "keys.getKey" | "keys.whoami" | "keys.updateKey" | "keys.deleteKey" | "keys.updateCredits"
  | "keys.rerollKey" | "keys.verifyKey" | "keys.migrateKeys" | "keys.enqueueMigration" | "keys.getMigration"
  | "ratelimit.limit" | "ratelimit.multiLimit" | "ratelimit.setOverride" | "ratelimit.getOverride"
  | "ratelimit.listOverrides" | "ratelimit.deleteOverride" | "ratelimit.listNamespaces"
  | "permissions.createPermission" | "permissions.getPermission" | "permissions.listPermissions" | "permissions.deletePermission"
  | "permissions.createRole" | "permissions.getRole" | "permissions.listRoles" | "permissions.deleteRole"
  | "permissions.setRolePermissions"
  | "keys.addPermissions" | "keys.removePermissions" | "keys.setPermissions" | "keys.addRoles" | "keys.removeRoles" | "keys.setRoles";

export interface OperationSpec {
  name: OperationName;
  service: DescService;
  /** The RPC's local name on its service, e.g. `createApi`. */
  method: string;
  /** The wildcard permission the operation asks for; the one a 403 names. */
  permission: string;
  /** The legacy v1 binding, where the proto declares one. */
  v1?: { verb: "GET" | "POST"; path: string };
}

export const OPERATIONS: Record<OperationName, OperationSpec> = {
  "identities.createIdentity": {
    name: "identities.createIdentity", service: IdentitiesService, method: "createIdentity", permission: "identity.*.create_identity",
    v1: { verb: "POST", path: "/v1/identities.createIdentity" },
  },
  "identities.getIdentity": {
    name: "identities.getIdentity", service: IdentitiesService, method: "getIdentity", permission: "identity.*.read_identity",
    v1: { verb: "GET", path: "/v1/identities.getIdentity" },
  },
  "identities.listIdentities": {
    name: "identities.listIdentities", service: IdentitiesService, method: "listIdentities", permission: "identity.*.read_identity",
    v1: { verb: "GET", path: "/v1/identities.listIdentities" },
  },
  "identities.updateIdentity": {
    name: "identities.updateIdentity", service: IdentitiesService, method: "updateIdentity", permission: "identity.*.update_identity",
    v1: { verb: "POST", path: "/v1/identities.updateIdentity" },
  },
  "identities.deleteIdentity": {
    name: "identities.deleteIdentity", service: IdentitiesService, method: "deleteIdentity", permission: "identity.*.delete_identity",
    v1: { verb: "POST", path: "/v1/identities.deleteIdentity" },
  },
  "apis.createApi": {
    name: "apis.createApi", service: ApisService, method: "createApi", permission: "api.*.create_api",
    v1: { verb: "POST", path: "/v1/apis.createApi" },
  },
  "apis.getApi": {
    name: "apis.getApi", service: ApisService, method: "getApi", permission: "api.*.read_api",
    v1: { verb: "GET", path: "/v1/apis.getApi" },
  },
  "apis.deleteApi": {
    name: "apis.deleteApi", service: ApisService, method: "deleteApi", permission: "api.*.delete_api",
    v1: { verb: "POST", path: "/v1/apis.deleteApi" },
  },
  "apis.listKeys": {
    name: "apis.listKeys", service: ApisService, method: "listKeys", permission: "api.*.read_key",
    v1: { verb: "GET", path: "/v1/apis.listKeys" },
  },
  "apis.deleteKeys": {
    name: "apis.deleteKeys", service: ApisService, method: "deleteKeys", permission: "api.*.delete_key",
    v1: { verb: "POST", path: "/v1/apis.deleteKeys" },
  },
  // A Keyward extension: v2 and the RPC protocols only.
  "apis.listApis": {
    name: "apis.listApis", service: ApisService, method: "listApis", permission: "api.*.read_api",
  },
  // A Keyward extension: v2 and the RPC protocols only.
  "apis.updateApi": {
    name: "apis.updateApi", service: ApisService, method: "updateApi", permission: "api.*.update_api",
  },
  "rootKeys.createRootKey": {
    name: "rootKeys.createRootKey", service: RootKeysService, method: "createRootKey", permission: "rootkey.*.create_root_key",
  },
  "rootKeys.listRootKeys": {
    name: "rootKeys.listRootKeys", service: RootKeysService, method: "listRootKeys", permission: "rootkey.*.read_root_key",
  },
  "rootKeys.deleteRootKey": {
    name: "rootKeys.deleteRootKey", service: RootKeysService, method: "deleteRootKey", permission: "rootkey.*.delete_root_key",
  },
  "workspaces.createWorkspace": {
    name: "workspaces.createWorkspace", service: WorkspacesService, method: "createWorkspace",
    permission: "workspace.*.create_workspace",
  },
  "keys.createKey": {
    name: "keys.createKey", service: KeysService, method: "createKey", permission: "api.*.create_key",
    v1: { verb: "POST", path: "/v1/keys.createKey" },
  },
  "keys.getKey": {
    name: "keys.getKey", service: KeysService, method: "getKey", permission: "api.*.read_key",
    v1: { verb: "GET", path: "/v1/keys.getKey" },
  },
  "keys.whoami": {
    name: "keys.whoami", service: KeysService, method: "whoAmI", permission: "api.*.read_key",
    v1: { verb: "POST", path: "/v1/keys.whoami" },
  },
  "keys.updateKey": {
    name: "keys.updateKey", service: KeysService, method: "updateKey", permission: "api.*.update_key",
    v1: { verb: "POST", path: "/v1/keys.updateKey" },
  },
  "keys.deleteKey": {
    name: "keys.deleteKey", service: KeysService, method: "deleteKey", permission: "api.*.delete_key",
    v1: { verb: "POST", path: "/v1/keys.deleteKey" },
  },
  // v1 binds this RPC as keys.updateRemaining with its own field names ({keyId, op, value}).
  "keys.updateCredits": {
    name: "keys.updateCredits", service: KeysService, method: "updateCredits", permission: "api.*.update_key",
    v1: { verb: "POST", path: "/v1/keys.updateRemaining" },
  },
  "keys.rerollKey": {
    name: "keys.rerollKey", service: KeysService, method: "rerollKey", permission: "api.*.create_key",
  },
  // Imports: v1's migrations.createKeys / enqueueKeys take other shapes (a bare array, per-key hash objects).
  "keys.migrateKeys": {
    name: "keys.migrateKeys", service: KeysService, method: "migrateKeys", permission: "api.*.create_key",
  },
  "keys.enqueueMigration": {
    name: "keys.enqueueMigration", service: KeysService, method: "enqueueMigration", permission: "api.*.create_key",
  },
  "keys.getMigration": {
    name: "keys.getMigration", service: KeysService, method: "getMigration", permission: "api.*.read_key",
  },
  // v1 verification is a different RPC (VerifyKeyV1, public), not a binding of this one.
  "keys.verifyKey": {
    name: "keys.verifyKey", service: KeysService, method: "verifyKey", permission: "api.*.verify_key",
  },
  // Standalone rate limits: v2 says `ratelimit.*`, v1 `ratelimits.*`.
  "ratelimit.limit": {
    name: "ratelimit.limit", service: RatelimitService, method: "limit", permission: "ratelimit.*.limit",
    v1: { verb: "POST", path: "/v1/ratelimits.limit" },
  },
  "ratelimit.multiLimit": {
    name: "ratelimit.multiLimit", service: RatelimitService, method: "multiLimit", permission: "ratelimit.*.limit",
  },
  "ratelimit.setOverride": {
    name: "ratelimit.setOverride", service: RatelimitService, method: "setOverride", permission: "ratelimit.*.set_override",
    v1: { verb: "POST", path: "/v1/ratelimits.setOverride" },
  },
  "ratelimit.getOverride": {
    name: "ratelimit.getOverride", service: RatelimitService, method: "getOverride", permission: "ratelimit.*.read_override",
    v1: { verb: "GET", path: "/v1/ratelimits.getOverride" },
  },
  "ratelimit.listOverrides": {
    name: "ratelimit.listOverrides", service: RatelimitService, method: "listOverrides", permission: "ratelimit.*.read_override",
    v1: { verb: "GET", path: "/v1/ratelimits.listOverrides" },
  },
  "ratelimit.deleteOverride": {
    name: "ratelimit.deleteOverride", service: RatelimitService, method: "deleteOverride", permission: "ratelimit.*.delete_override",
    v1: { verb: "POST", path: "/v1/ratelimits.deleteOverride" },
  },
  // A Keyward extension: v2 and the RPC protocols only.
  "ratelimit.listNamespaces": {
    name: "ratelimit.listNamespaces", service: RatelimitService, method: "listNamespaces", permission: "ratelimit.*.read_namespace",
  },
  // RBAC (v1 shapes differ: the v1 dialect maps roleId/permissionId and {id|name} entries).
  "permissions.createPermission": {
    name: "permissions.createPermission", service: PermissionsService, method: "createPermission", permission: "rbac.*.create_permission",
    v1: { verb: "POST", path: "/v1/permissions.createPermission" },
  },
  "permissions.getPermission": {
    name: "permissions.getPermission", service: PermissionsService, method: "getPermission", permission: "rbac.*.read_permission",
    v1: { verb: "GET", path: "/v1/permissions.getPermission" },
  },
  "permissions.listPermissions": {
    name: "permissions.listPermissions", service: PermissionsService, method: "listPermissions", permission: "rbac.*.read_permission",
    v1: { verb: "GET", path: "/v1/permissions.listPermissions" },
  },
  "permissions.deletePermission": {
    name: "permissions.deletePermission", service: PermissionsService, method: "deletePermission", permission: "rbac.*.delete_permission",
    v1: { verb: "POST", path: "/v1/permissions.deletePermission" },
  },
  "permissions.createRole": {
    name: "permissions.createRole", service: PermissionsService, method: "createRole", permission: "rbac.*.create_role",
    v1: { verb: "POST", path: "/v1/permissions.createRole" },
  },
  "permissions.getRole": {
    name: "permissions.getRole", service: PermissionsService, method: "getRole", permission: "rbac.*.read_role",
    v1: { verb: "GET", path: "/v1/permissions.getRole" },
  },
  "permissions.listRoles": {
    name: "permissions.listRoles", service: PermissionsService, method: "listRoles", permission: "rbac.*.read_role",
    v1: { verb: "GET", path: "/v1/permissions.listRoles" },
  },
  "permissions.deleteRole": {
    name: "permissions.deleteRole", service: PermissionsService, method: "deleteRole", permission: "rbac.*.delete_role",
    v1: { verb: "POST", path: "/v1/permissions.deleteRole" },
  },
  "permissions.setRolePermissions": {
    name: "permissions.setRolePermissions", service: PermissionsService, method: "setRolePermissions", permission: "rbac.*.add_permission_to_role",
  },
  "keys.addPermissions": {
    name: "keys.addPermissions", service: KeysService, method: "addPermissions", permission: "rbac.*.add_permission_to_key",
    v1: { verb: "POST", path: "/v1/keys.addPermissions" },
  },
  "keys.removePermissions": {
    name: "keys.removePermissions", service: KeysService, method: "removePermissions", permission: "rbac.*.remove_permission_from_key",
    v1: { verb: "POST", path: "/v1/keys.removePermissions" },
  },
  "keys.setPermissions": {
    name: "keys.setPermissions", service: KeysService, method: "setPermissions", permission: "rbac.*.add_permission_to_key",
    v1: { verb: "POST", path: "/v1/keys.setPermissions" },
  },
  "keys.addRoles": {
    name: "keys.addRoles", service: KeysService, method: "addRoles", permission: "rbac.*.add_role_to_key",
    v1: { verb: "POST", path: "/v1/keys.addRoles" },
  },
  "keys.removeRoles": {
    name: "keys.removeRoles", service: KeysService, method: "removeRoles", permission: "rbac.*.remove_role_from_key",
    v1: { verb: "POST", path: "/v1/keys.removeRoles" },
  },
  "keys.setRoles": {
    name: "keys.setRoles", service: KeysService, method: "setRoles", permission: "rbac.*.add_role_to_key",
    v1: { verb: "POST", path: "/v1/keys.setRoles" },
  },
};

export const RPC_VIAS = ["connect", "grpc", "grpcWeb"] as const;
export type RpcVia = (typeof RPC_VIAS)[number];
/** How a call travels: REST v2 (POST + envelope), REST v1 (its own binding), or one of the RPC protocols. */
export type Via = "v2" | "v1" | RpcVia;

/** Every way `op` can be called: v2, v1 if bound, and the three RPC protocols. */
export function viasOf(op: OperationSpec): Via[] {
  return op.v1 ? ["v2", "v1", ...RPC_VIAS] : ["v2", ...RPC_VIAS];
}

/** One call's result, whatever carried it: REST keeps status/body/headers, RPC keeps the response or error. */
export type Outcome =
  | { via: "v2"; rest: RestResponse }
  | { via: "v1"; rest: RestResponse }
  | { via: RpcVia; ok: true; message: unknown; headers: Headers }
  | { via: RpcVia; ok: false; error: ConnectError };

export interface CallOptions {
  /** The raw `Authorization` header value; undefined sends none. */
  authorization?: string;
  /** For RPC: a transport other than the default connect-node one for `via` (e.g. a fetch-based one). */
  transport?: Transport;
}

/**
 * Calls `op` with `input` given as its proto JSON (v1 GET turns it into query parameters; RPC decodes it into
 * the request message). For REST, a string `input` is sent as the raw body (or raw query string on v1 GET).
 */
export async function callOperation(
  baseUrl: string,
  via: Via,
  op: OperationSpec,
  input: unknown,
  options: CallOptions = {},
): Promise<Outcome> {
  const auth: Record<string, string> = options.authorization === undefined ? {} : { authorization: options.authorization };
  if (via === "v2" || via === "v1") {
    const binding = via === "v2" ? { verb: "POST" as const, path: `/v2/${op.name}` } : op.v1;
    if (!binding) throw new Error(`${op.name} has no v1 binding`);
    let url = `${baseUrl}${binding.path}`;
    const init: RequestInit = { method: binding.verb, headers: { "content-type": "application/json", ...auth } };
    if (binding.verb === "GET") {
      url += `?${typeof input === "string" ? input : toQuery(input as Record<string, unknown>)}`;
    } else {
      init.body = typeof input === "string" ? input : JSON.stringify(input);
    }
    const rest = await toRestResponse(await fetch(url, init));
    return via === "v2" ? { via, rest } : { via, rest };
  }
  const method = op.service.methods.find((m) => m.localName === op.method);
  if (!method) throw new Error(`${op.service.typeName} has no ${op.method}`);
  const request = fromJson(method.input as DescMessage, input as JsonValue);
  const client = rpcClient(op.service, options.transport ?? transportFor(baseUrl, via)) as unknown as Record<
    string,
    (request: unknown, options: object) => Promise<unknown>
  >;
  let headers = new Headers();
  try {
    const message = await client[op.method](request, { headers: auth, onHeader: (h: Headers) => void (headers = h) });
    return { via, ok: true, message, headers };
  } catch (error) {
    return { via, ok: false, error: ConnectError.from(error) };
  }
}

const transports = new Map<string, Transport>();

function transportFor(baseUrl: string, via: RpcVia): Transport {
  const key = `${via} ${baseUrl}`;
  let transport = transports.get(key);
  if (!transport) {
    transport = rpcTransports(baseUrl)[via];
    transports.set(key, transport);
  }
  return transport;
}

function toQuery(input: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  return params.toString();
}

async function toRestResponse(response: Response): Promise<RestResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep non-JSON bodies as text so an assertion shows them
  }
  return { status: response.status, body, headers: response.headers };
}
