import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbitraryOf, committedDocument, documentValidator, operationsOf, type DocumentedOperation } from "../support/openapi-schemas.js";
import { useKeyward, type Harness } from "../support/use-keyward.js";

/**
 * 400s a valid request may still get: rules across fields or against stored data, which the documented schema of a
 * single request cannot express. Any other 400 to a request built from the documented schema means the document
 * promises more than the server accepts.
 */
const BEYOND_SCHEMA = [
  /refill needs a credit balance|monthly refill needs refillDay|refillDay applies to monthly refills/, // credits
  /needs a value|would take the balance past/, // updateCredits: increment and decrement need one, within 2^53
  /permission query is invalid/, // the query grammar
  /Two rate limits are named|repeats namespace .* with identifier/, // names unique within one request
  /Unknown permission/, // root-key permissions come from the catalogue
  /Name the identity|Name the namespace/, // v1 GET: one of several query parameters
  /has no rate limit named/, // v1 verifyKey: a named limit the key does not have
  /cursor is not one this service issued/,
];

const RUNS_PER_OPERATION = 12;
const SEED = 20261125;

/** Deletions last, so the seeded resources serve the other operations first. */
const byDeletionLast = (a: DocumentedOperation, b: DocumentedOperation) =>
  Number(/delete/i.test(a.path)) - Number(/delete/i.test(b.path));

describe("REST answers conform to the OpenAPI documents", () => {
  const harness = useKeyward();

  for (const dialect of ["v2", "v1"] as const) {
    it(`every ${dialect} operation answers generated valid requests with a documented status and body`, async () => {
      const document = committedDocument(dialect);
      const validator = documentValidator(document, dialect);
      const hints = await seedResources(harness, dialect);
      const statuses = new Map<string, Set<number>>();
      for (const operation of operationsOf(document).sort(byDeletionLast)) {
        const requests = arbitraryOf(operation.request, validator, hints);
        const seen = new Set<number>();
        statuses.set(`${operation.verb} ${operation.path}`, seen);
        await fc.assert(fc.asyncProperty(requests, async (input) => {
          const { status, body, requestId } = await send(harness, operation, input);
          seen.add(status);
          const where = `${operation.verb} ${operation.path} ${JSON.stringify(input)} → ${status} ${JSON.stringify(body)}`;
          expect(operation.responses.has(status), `undocumented status: ${where}`).toBe(true);
          expect(validator.errors(operation.responses.get(status)!, body), where).toEqual([]);
          expect(requestId, where).toMatch(/^req_/);
          expect(status, `server error: ${where}`).not.toBe(500);
          if (status === 400) {
            const detail = String(body.error?.detail ?? body.error?.message);
            if (process.env.OPENAPI_DEBUG) console.log("400", operation.path, detail.slice(0, 150));
            expect(BEYOND_SCHEMA.some((rule) => rule.test(detail)), `a documented-valid request was refused: ${where}`).toBe(true);
          }
        }), { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true });
      }
      // The seeded ids make most operations succeed at least once: the schema of 200 is exercised, not only errors.
      if (process.env.OPENAPI_DEBUG) console.log(dialect, [...statuses].map(([op, seen]) => `${op} ${[...seen].sort().join(",")}`).join("\n"));
      const succeeded = [...statuses].filter(([, seen]) => seen.has(200)).length;
      expect(succeeded / statuses.size).toBeGreaterThan(0.8);
    });
  }
});

/** Live resources whose ids and names the generated requests prefer where the schema allows them. */
async function seedResources(harness: Harness, suffix: string): Promise<Record<string, unknown[]>> {
  const ok = async (op: string, body: unknown) => {
    const response = await harness.rest.v2(op, body, harness.keyward.rootKey);
    expect({ op, status: response.status }).toEqual({ op, status: 200 });
    return response.body.data;
  };
  const apiId = await harness.seed.api({ name: `openapi-${suffix}` });
  const externalId = `user_${suffix}`;
  const { identityId } = await ok("identities.createIdentity", { externalId, ratelimits: [{ name: "requests", limit: 100, duration: 60_000 }] });
  const slug = `docs.read_${suffix}`;
  const { permissionId } = await ok("permissions.createPermission", { name: slug, slug });
  const roleName = `docs_reader_${suffix}`;
  const { roleId } = await ok("permissions.createRole", { name: roleName, permissions: [slug] });
  const key = await harness.seed.key(apiId, {
    name: "seeded", externalId, roles: [roleName], permissions: [slug], credits: { remaining: 1000 },
    ratelimits: [{ name: "requests", limit: 1000, duration: 60_000 }],
  });
  const namespace = `docs_ns_${suffix}`;
  const identifier = "caller_1";
  await ok("ratelimit.limit", { namespace, identifier, limit: 100, duration: 60_000 }); // creates the namespace
  await ok("ratelimit.setOverride", { namespace, identifier, limit: 50, duration: 60_000 });
  return {
    apiId: [apiId], keyId: [key.keyId], key: [key.key],
    identity: [identityId, externalId], identityId: [identityId], externalId: [externalId], ownerId: [externalId],
    namespace: [namespace], namespaceName: [namespace], identifier: [identifier],
    permission: [slug, permissionId], permissionId: [permissionId], role: [roleName, roleId], roleId: [roleId],
    permissions: [[slug], ["api.*.read_api"], slug, { and: [slug] }], roles: [[roleName]],
  };
}

async function send(harness: Harness, operation: DocumentedOperation, input: unknown) {
  const headers: Record<string, string> = operation.public ? {} : { authorization: `Bearer ${harness.keyward.rootKey}` };
  let url = `${harness.keyward.baseUrl}${operation.path}`;
  const init: RequestInit = { method: operation.verb, headers };
  if (operation.verb === "GET") {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
      for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
    }
    if ([...params].length > 0) url += `?${params}`;
  } else {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(input);
  }
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json(), requestId: response.headers.get("x-request-id") };
}
