/** Hash routes (`#/apis/api_…`): the server serves one page, the browser keeps the place on reload. */
export function currentRoute(): string[] {
  return location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
}

export function navigate(path: string): void {
  location.hash = `#${path}`;
}
