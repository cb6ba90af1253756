/**
 * The audit action of every RPC that changes state, by `<service type name>.<method name>`. The app refuses to
 * start when a state-changing RPC has none (audited-operations.ts), and the audit test walks the operation table,
 * so a new mutating route cannot ship unaudited.
 */
export const AUDIT_ACTIONS: Readonly<Record<string, string>> = {
  "keyward.v1.ApisService.CreateApi": "api.create",
  "keyward.v1.ApisService.UpdateApi": "api.update",
  "keyward.v1.ApisService.DeleteApi": "api.delete",
  // One key.delete record per deleted key (each is its own write); none when there was no key to delete.
  "keyward.v1.ApisService.DeleteKeys": "key.delete",
  "keyward.v1.KeysService.CreateKey": "key.create",
  "keyward.v1.KeysService.UpdateKey": "key.update",
  "keyward.v1.KeysService.DeleteKey": "key.delete",
  "keyward.v1.KeysService.UpdateCredits": "key.updateCredits",
  "keyward.v1.KeysService.RerollKey": "key.reroll",
  "keyward.v1.KeysService.AddPermissions": "key.addPermissions",
  "keyward.v1.KeysService.RemovePermissions": "key.removePermissions",
  "keyward.v1.KeysService.SetPermissions": "key.setPermissions",
  "keyward.v1.KeysService.AddRoles": "key.addRoles",
  "keyward.v1.KeysService.RemoveRoles": "key.removeRoles",
  "keyward.v1.KeysService.SetRoles": "key.setRoles",
  // An import records one key.create per key imported, as that many createKey calls would.
  "keyward.v1.KeysService.MigrateKeys": "key.create",
  "keyward.v1.KeysService.EnqueueMigration": "migration.enqueue",
  "keyward.v1.IdentitiesService.CreateIdentity": "identity.create",
  "keyward.v1.IdentitiesService.UpdateIdentity": "identity.update",
  "keyward.v1.IdentitiesService.DeleteIdentity": "identity.delete",
  "keyward.v1.PermissionsService.CreatePermission": "permission.create",
  "keyward.v1.PermissionsService.DeletePermission": "permission.delete",
  "keyward.v1.PermissionsService.CreateRole": "role.create",
  "keyward.v1.PermissionsService.DeleteRole": "role.delete",
  "keyward.v1.PermissionsService.SetRolePermissions": "role.setPermissions",
  "keyward.v1.RatelimitService.SetOverride": "ratelimitOverride.set",
  "keyward.v1.RatelimitService.DeleteOverride": "ratelimitOverride.delete",
  "keyward.v1.RootKeysService.CreateRootKey": "rootKey.create",
  "keyward.v1.RootKeysService.DeleteRootKey": "rootKey.delete",
  "keyward.v1.WorkspacesService.CreateWorkspace": "workspace.create",
  "keyward.v1.WebhooksService.CreateWebhook": "webhook.create",
  "keyward.v1.WebhooksService.UpdateWebhook": "webhook.update",
  "keyward.v1.WebhooksService.DeleteWebhook": "webhook.delete",
  "keyward.v1.WebhooksService.RotateSecret": "webhook.rotateSecret",
  "keyward.v1.WebhooksService.Redeliver": "webhook.redeliver",
  "keyward.v1.WebhooksService.SendTest": "webhook.sendTest",
};

/**
 * RPCs whose every change is a document write, so each change already has its record: when such a call wrote no
 * document it changed nothing and gets no record (others get one naming the request's resources, for changes that
 * live in the counters).
 */
export const DOCUMENT_CHANGES_ONLY: ReadonlySet<string> = new Set(["keyward.v1.ApisService.DeleteKeys"]);

/** CLI commands that change state, with their audit action (the CLI's actor is "cli"). */
export const CLI_AUDIT_ACTIONS = {
  "workspace-create": "workspace.create",
  "root-key-create": "rootKey.create",
  "root-key-revoke": "rootKey.delete",
} as const;

/** A rate-limit namespace created by its first `limit` or `multiLimit` call (those calls are otherwise not audited). */
export const NAMESPACE_CREATE_ACTION = "ratelimitNamespace.create";

/** Actions that change no documents: reads, verification and rate-limit checks (counters; see NAMESPACE_CREATE_ACTION). */
const NON_CHANGING = /^(read_.*|verify_key|limit)$/;

/**
 * Whether an RPC changes state, judged from its declared access alone: everything but public RPCs, `read_*`,
 * `verify_key` and `limit`. Deliberately by exclusion: an RPC with a new action counts as a change until listed.
 */
export function changesState(access: { public: boolean; action: string }): boolean {
  return !access.public && !NON_CHANGING.test(access.action);
}
