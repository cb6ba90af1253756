/**
 * Hash routes (`#/apis/api_…`, `#/audit-log?actor=…`): the server serves one page, the browser keeps the place (and a
 * page's filters, after `?`) on reload, and a view can be shared as its address.
 */
function hashParts(): [path: string, query: string] {
  const hash = location.hash.replace(/^#\/?/, "");
  const at = hash.indexOf("?");
  return at < 0 ? [hash, ""] : [hash.slice(0, at), hash.slice(at + 1)];
}

export function currentRoute(): string[] {
  return hashParts()[0].split("/").filter(Boolean).map(decodeURIComponent);
}

/** The current route's filters (the part of the hash after `?`). */
export function routeQuery(): URLSearchParams {
  return new URLSearchParams(hashParts()[1]);
}

/**
 * Puts `params` (empty values left out) into the address without a new history entry or a hashchange: the page already
 * shows them; a reload or a shared link shows them again.
 */
export function replaceRouteQuery(params: Record<string, string | undefined>): void {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1])).toString();
  history.replaceState(history.state, "", `#/${hashParts()[0]}${query ? `?${query}` : ""}`);
}

export function navigate(path: string): void {
  location.hash = `#${path}`;
}
