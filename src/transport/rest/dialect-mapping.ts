/**
 * v1 is a thin dialect over the same RPCs: per route, how v1 names and shapes map onto the proto JSON and back.
 * Routes absent here use the proto JSON unchanged (without the v2 envelope).
 */
export interface DialectMapping {
  request?: (input: unknown) => unknown;
  /** `json` is the payload (the `response_body` field when the binding names one); `full` the whole response. */
  response?: (json: Record<string, unknown>, full: Record<string, unknown>) => unknown;
  /**
   * With `response`: the answers it changes, told from the handler's output by fields REST JSON copies as they are
   * (a string's value). Any other answer is the proto JSON unchanged, which REST then writes as text directly.
   */
  responseOnly?: (output: Record<string, unknown>) => boolean;
  /** The success status when it is not 200 (v1 migrations.enqueueKeys answers 202, as Unkey did). */
  status?: number;
}
