import { aborted } from "../domain/errors.js";

/** Attempts before giving up: each failed attempt means another writer succeeded in between (see updateKeyWithRetry). */
const MAX_ATTEMPTS = 16;

/**
 * Read-modify-write of one record whose store `replace` is a compare-and-swap on the revision read (roles,
 * identities). `change` computes the next record from the current one; when `replace` reports that the record
 * changed since it was read, it is read again and `change` runs again on the fresh one. Resolves to the record as
 * written (at its new revision), or undefined when the record is gone. Throws `aborted` when it keeps losing.
 */
export async function replaceWithRetry<R extends { revision?: number }>(options: {
  read: R;
  reload(): Promise<R | undefined>;
  change(current: R): R | Promise<R>;
  replace(next: R): Promise<boolean>;
  /** For the conflict message, e.g. "The role role_123". */
  subject: string;
}): Promise<R | undefined> {
  let current: R | undefined = options.read;
  for (let attempt = 1; current; attempt++) {
    // The revision is the one read, whatever `change` returned: it is what the store compares.
    const next: R = { ...(await options.change(current)), revision: current.revision };
    if (await options.replace(next)) return { ...next, revision: (current.revision ?? 0) + 1 };
    if (attempt >= MAX_ATTEMPTS) throw aborted(`${options.subject} is being changed concurrently; retry the request.`);
    current = await options.reload();
  }
  return undefined;
}
