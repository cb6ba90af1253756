import type { MigrateKeyData } from "../../../gen/keyward/v1/keys_pb.js";
import { invalid } from "../../domain/errors.js";
import { HASH_VARIANTS, importedPlaintext, isHashVariant, storedHashOf } from "../../domain/import-hash.js";
import type { EncryptedKey } from "../../domain/key-encryption.js";
import type { ApiRecord } from "../../store/ports/apis.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { KeysDeps } from "./key-context.js";
import { checkSettings, type CheckedSettings } from "./key-settings.js";

/** One key's outcome, as ImportResult lists them. */
type Outcome = { hash: string; index: number };

/** The request fields the candidates are read from (ImportRequest's). */
interface CandidateSource {
  migrationId: string;
  apiId: string;
  keys: readonly MigrateKeyData[];
}

/** A key that passed every check, ready to become a record. */
export interface Candidate {
  index: number;
  given: string;
  hash: string;
  start: string;
  plaintext?: string;
  api: ApiRecord;
  checked: CheckedSettings;
  /** The id pinned for this key (a queued job's). */
  keyId?: string;
  /** The secret encrypted under the pinned id when it was queued (a queued job stores no plaintext). */
  encrypted?: EncryptedKey;
}

/**
 * Every check of an import that needs no store, key by key: the hash in its variant's encoding (or the plaintext,
 * hashed), and createKey's setting checks. The first refusal names its key (`keys[i].<field>`, `i` counted from
 * `offset`); nothing has been written when it is thrown.
 */
export function candidatesOf(
  deps: Pick<KeysDeps, "randomBytes">, request: CandidateSource, apis: Map<string, ApiRecord>, options: { now: number; offset?: number },
): Candidate[] {
  return request.keys.map((key, i) => {
    const index = (options.offset ?? 0) + i;
    const at = `keys[${index}]`;
    let stored: { hash: string; start: string };
    if (key.plaintext !== undefined) {
      if (key.hash !== "") throw invalid(`${at}: give hash or plaintext, not both.`, [{ location: `${at}.plaintext`, message: "not with hash" }]);
      stored = importedPlaintext(key.plaintext);
    } else {
      const variant = key.hashVariant ?? request.migrationId;
      if (!isHashVariant(variant)) {
        const location = key.hashVariant === undefined ? "migrationId" : `${at}.hashVariant`;
        throw invalid(`${location} must be one of ${HASH_VARIANTS.join(", ")}.`, [{ location, message: `one of ${HASH_VARIANTS.join(", ")}` }]);
      }
      if (key.hash === "") throw invalid(`${at}.hash is required unless plaintext is given.`, [{ location: `${at}.hash`, message: "required" }]);
      const parsed = storedHashOf(key.hash, variant);
      if ("error" in parsed) throw invalid(`${at}.hash ${parsed.error}.`, [{ location: `${at}.hash`, message: parsed.error }]);
      stored = { hash: parsed.hash, start: "" };
    }
    const checked = checkSettings(key, { now: options.now, randomBytes: deps.randomBytes, location: at });
    const api = apis.get(key.apiId ?? request.apiId) as ApiRecord;
    return {
      index, given: key.plaintext !== undefined ? stored.hash : key.hash, hash: stored.hash, start: key.start ?? stored.start,
      plaintext: key.plaintext, api, checked,
    };
  });
}

/**
 * Splits candidates into the importable and the failed: repeats within the request (the first stays), then hashes a
 * key holds already. A taken hash held by the key whose id a candidate pinned is that key imported before (a resumed
 * job), not a failure.
 */
export async function sorted(documents: DocumentStore, workspaceId: string, candidates: Candidate[]) {
  const failures: (Outcome & { error: string })[] = [];
  const resumed: (Outcome & { keyId: string })[] = [];
  const firstOf = new Map<string, number>();
  const unique: Candidate[] = [];
  for (const c of candidates) {
    const first = firstOf.get(c.hash);
    if (first !== undefined) failures.push({ hash: c.given, index: c.index, error: `repeats the hash of keys[${first}]` });
    else {
      firstOf.set(c.hash, c.index);
      unique.push(c);
    }
  }
  const taken = await documents.keys.takenHashes(unique.map((c) => c.hash));
  const importable: Candidate[] = [];
  for (const c of unique) {
    if (!taken.has(c.hash)) importable.push(c);
    else if (c.keyId !== undefined && (await documents.keys.get(workspaceId, c.keyId))?.hash === c.hash) {
      resumed.push({ hash: c.given, keyId: c.keyId, index: c.index });
    } else failures.push({ hash: c.given, index: c.index, error: "a key with this hash already exists" });
  }
  return { importable, failures, resumed };
}
