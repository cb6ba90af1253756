import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import type { DescService } from "@bufbuild/protobuf";
import { AnalyticsService } from "../gen/keyward/v1/analytics_pb.js";
import { ApisService } from "../gen/keyward/v1/apis_pb.js";
import { AuditLogsService } from "../gen/keyward/v1/audit_logs_pb.js";
import { IdentitiesService } from "../gen/keyward/v1/identities_pb.js";
import { KeysService } from "../gen/keyward/v1/keys_pb.js";
import { PermissionsService } from "../gen/keyward/v1/permissions_pb.js";
import { RatelimitService } from "../gen/keyward/v1/ratelimits_pb.js";
import { RootKeysService } from "../gen/keyward/v1/root_keys_pb.js";
import { WebhooksService } from "../gen/keyward/v1/webhooks_pb.js";
import { holdsActionAnywhere } from "../src/domain/permissions.js";

/** What the server says about the signed-in session (GET /dashboard/api/session). */
export interface Session {
  csrfToken: string;
  expiresAt: number;
  workspaceId: string;
  rootKeyId: string;
  /** The root key's name, when it has one. */
  rootKeyName?: string;
  permissions: string[];
}

const CSRF_HEADER = "x-keyward-csrf";
let current: Session | undefined;

/** The session, or undefined when signed out. The root key itself is never kept: only the server knows the session. */
export async function loadSession(): Promise<Session | undefined> {
  const response = await fetch("/dashboard/api/session", { headers: { accept: "application/json" } });
  if (response.status === 401) return (current = undefined);
  if (!response.ok) throw new Error(await errorText(response));
  return (current = (await response.json()) as Session);
}

/** Exchanges a root key for a session cookie; the key is sent once, in this request body, and not kept. */
export async function signIn(rootKey: string): Promise<Session> {
  const response = await fetch("/dashboard/api/sign-in", {
    method: "POST",
    headers: { "content-type": "application/json", [CSRF_HEADER]: "sign-in" },
    body: JSON.stringify({ rootKey }),
  });
  if (!response.ok) throw new Error(await errorText(response));
  return (current = (await response.json()) as Session);
}

export async function signOut(): Promise<void> {
  await fetch("/dashboard/api/sign-out", { method: "POST", headers: { [CSRF_HEADER]: current?.csrfToken ?? "" } });
  current = undefined;
}

/** True when the session's root key holds `type.<any>.action`; the UI disables what it could not do. */
export function can(resourceType: string, action: string): boolean {
  return current !== undefined && holdsActionAnywhere(new Set(current.permissions), resourceType, action);
}

export function session(): Session | undefined {
  return current;
}

async function errorText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: string } };
    return body.error?.message ?? `The server answered ${response.status}.`;
  } catch {
    return `The server answered ${response.status}.`;
  }
}

const csrf: Interceptor = (next) => (request) => {
  request.header.set(CSRF_HEADER, current?.csrfToken ?? "");
  return next(request);
};

const transport = createConnectTransport({ baseUrl: "/dashboard/rpc", interceptors: [csrf] });
const clients = new Map<DescService, Client<DescService>>();

function client<S extends DescService>(service: S): Client<S> {
  let made = clients.get(service);
  if (!made) clients.set(service, (made = createClient(service, transport) as Client<DescService>));
  return made as Client<S>;
}

/** Typed clients of the API's own services, over the Connect protocol, authenticated by the session cookie. */
export const api = {
  get rootKeys() { return client(RootKeysService); },
  get apis() { return client(ApisService); },
  get keys() { return client(KeysService); },
  get identities() { return client(IdentitiesService); },
  get ratelimits() { return client(RatelimitService); },
  get permissions() { return client(PermissionsService); },
  get analytics() { return client(AnalyticsService); },
  get auditLogs() { return client(AuditLogsService); },
  get webhooks() { return client(WebhooksService); },
};

/** A failure in words, for the page; an ended session sends the user back to sign-in. */
export function describeError(error: unknown): string {
  if (error instanceof ConnectError) {
    if (error.code === Code.Unauthenticated) {
      current = undefined;
      window.dispatchEvent(new Event("keyward:signed-out"));
      return `Your session has ended: ${error.rawMessage}`;
    }
    if (error.code === Code.PermissionDenied) return `Not allowed: ${error.rawMessage}`;
    if (error.code === Code.NotFound) return `Not found: ${error.rawMessage}`;
    if (error.code === Code.InvalidArgument) return `Invalid input: ${error.rawMessage}`;
    return error.rawMessage;
  }
  if (error instanceof TypeError) return "The server cannot be reached. Check that Keyward is running.";
  return error instanceof Error ? error.message : String(error);
}
