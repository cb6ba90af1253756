/** A dashboard session as a browser would hold it: the cookie's token and the CSRF token from the answer. */
export interface DashboardSession {
  token: string;
  csrf: string;
  setCookie: string;
  body: Record<string, unknown>;
}

/** POST /dashboard/api/sign-in; throws unless it answers 200 with a session cookie. */
export async function dashboardSignIn(baseUrl: string, rootKey: string): Promise<DashboardSession> {
  const res = await fetch(`${baseUrl}/dashboard/api/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-keyward-csrf": "sign-in", origin: baseUrl },
    body: JSON.stringify({ rootKey }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  const setCookie = res.headers.get("set-cookie") ?? "";
  const token = /kw_dashboard_session=([^;]*)/.exec(setCookie)?.[1];
  if (res.status !== 200 || !token) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(body)}`);
  return { token, csrf: body.csrfToken as string, setCookie, body };
}

/**
 * A Connect JSON call through the dashboard: `/dashboard/rpc/<service>/<method>` with the session cookie and, unless
 * overridden in `headers`, the session's CSRF token. A header set to undefined is left out.
 */
export async function dashboardRpc(
  baseUrl: string,
  session: { token: string; csrf?: string } | undefined,
  method: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<{ status: number; body: any; text: string }> {
  const all: Record<string, string | undefined> = {
    "content-type": "application/json",
    ...(session && { cookie: `kw_dashboard_session=${session.token}`, "x-keyward-csrf": session.csrf }),
    ...headers,
  };
  const res = await fetch(`${baseUrl}/dashboard/rpc/${method}`, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed, text };
}

/** GET /dashboard/api/session with a token: 200 while the session lives, 401 after. */
export async function dashboardSessionStatus(baseUrl: string, token: string): Promise<number> {
  const res = await fetch(`${baseUrl}/dashboard/api/session`, { headers: { cookie: `kw_dashboard_session=${token}` } });
  await res.arrayBuffer();
  return res.status;
}
