/**
 * v1 is a thin dialect over the same RPCs: per route, how v1 names and shapes map onto the proto JSON and back.
 * Routes absent here use the proto JSON unchanged (without the v2 envelope).
 */
export interface DialectMapping {
  request?: (input: unknown) => unknown;
  /** `json` is the payload (the `response_body` field when the binding names one); `full` the whole response. */
  response?: (json: Record<string, unknown>, full: Record<string, unknown>) => unknown;
  /** The success status when it is not 200 (v1 migrations.enqueueKeys answers 202, as Unkey did). */
  status?: number;
}
