import type { Clock } from "./domain/clock.js";
import type { RandomBytes } from "./domain/ids.js";
import { hashKey } from "./domain/key-material.js";
import { allPermissions } from "./domain/permissions.js";
import { mintRootKey } from "./services/root-keys-service.js";
import { createWorkspaceWithRootKey } from "./services/workspaces-service.js";
import type { DocumentStore } from "./store/ports/documents.js";

/** Names of the two keys bootstrap makes, told apart in lists and the dashboard's header. */
export const FIRST_START_KEY_NAME = "first-start";
export const ENV_KEY_NAME = "KEYWARD_ROOT_KEY";

export interface BootstrapOptions {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** KEYWARD_ROOT_KEY: make sure a root key with exactly this value exists in the default workspace. */
  rootKey?: string;
  /** Where the one-time notice goes; the secret is printed only when this process created it. */
  print: (line: string) => void;
}

/**
 * First-start bootstrap. With KEYWARD_ROOT_KEY, ensures that key exists (holding every permission) in the default
 * workspace (the oldest), creating the workspace if there is none; a revoked one stays revoked. Without it, creates
 * a workspace and a root key on the very first start and prints the key once.
 */
export async function bootstrap(options: BootstrapOptions): Promise<void> {
  const { documents, clock, randomBytes, print } = options;
  if (options.rootKey !== undefined) {
    const existing = await documents.rootKeys.findByHash(hashKey(options.rootKey));
    if (existing?.deletedAt !== undefined) print("KEYWARD_ROOT_KEY names a revoked root key; it stays revoked.");
    if (existing) return;
    const [defaultWorkspace] = await documents.workspaces.list({ limit: 1 });
    if (!defaultWorkspace) {
      const { workspace } = await createWorkspaceWithRootKey(options, { name: "default", rootKeyName: ENV_KEY_NAME, key: options.rootKey });
      print(`Created workspace ${workspace.id} with the root key from KEYWARD_ROOT_KEY.`);
      return;
    }
    const { record } = mintRootKey({
      workspaceId: defaultWorkspace.id,
      permissions: allPermissions(),
      name: ENV_KEY_NAME,
      key: options.rootKey,
      now: clock.now(),
      randomBytes,
    });
    await documents.rootKeys.insert(record);
    print(`Added the root key from KEYWARD_ROOT_KEY to workspace ${defaultWorkspace.id}.`);
    return;
  }
  if (await documents.rootKeys.any()) return;
  const { workspace, rootKey } = await createWorkspaceWithRootKey(options, { name: "default", rootKeyName: FIRST_START_KEY_NAME });
  print(`Created workspace ${workspace.id} and its first root key (${rootKey.keyId}); it is shown only this once:`);
  print(`  ${rootKey.key}`);
}
