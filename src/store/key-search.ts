/**
 * A search of an api's keys: `text` found, ignoring case and taken literally, in a key's name, id or start, or the key
 * linked to one of `identityIds` (the identities whose external id holds the text, found by the caller).
 */
export interface KeySearch {
  text: string;
  identityIds: readonly string[];
}

/** Whether a key answers `search` (the embedded adapter's filter; MongoDB's is keySearchFilter in mongo/filters.ts). */
export function keyMatchesSearch(key: { id: string; name?: string; start: string; identityId?: string }, search: KeySearch | undefined): boolean {
  if (search === undefined) return true;
  const needle = search.text.toLowerCase();
  return [key.id, key.name ?? "", key.start].some((field) => field.toLowerCase().includes(needle))
    || (key.identityId !== undefined && search.identityIds.includes(key.identityId));
}
