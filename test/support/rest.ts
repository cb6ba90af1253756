/** A REST response as tests look at it. */
export interface RestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

async function toResult(response: Response): Promise<RestResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave non-JSON bodies as text so a test can assert on them
  }
  return { status: response.status, body, headers: response.headers };
}

function authHeaders(rootKey: string | undefined): Record<string, string> {
  return rootKey === undefined ? {} : { authorization: `Bearer ${rootKey}` };
}

/** Plain-fetch REST client for one server: v2 POST with envelope, v1 GET with query or POST with body. */
export function restClient(baseUrl: string) {
  return {
    /** POST /v2/<op> with a JSON body (objects are stringified, strings are sent raw). */
    async v2(op: string, body: unknown, rootKey?: string, headers: Record<string, string> = {}) {
      return toResult(await fetch(`${baseUrl}/v2/${op}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...authHeaders(rootKey), ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }));
    },
    async v1Post(op: string, body: unknown, rootKey?: string) {
      return toResult(await fetch(`${baseUrl}/v1/${op}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...authHeaders(rootKey) },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }));
    },
    async v1Get(op: string, query: Record<string, string | number | boolean>, rootKey?: string) {
      const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
      return toResult(await fetch(`${baseUrl}/v1/${op}?${params}`, { headers: authHeaders(rootKey) }));
    },
    async raw(path: string, init: RequestInit = {}) {
      return toResult(await fetch(`${baseUrl}${path}`, init));
    },
  };
}
