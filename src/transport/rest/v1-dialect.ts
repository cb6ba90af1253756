/**
 * v1 is a thin dialect over the same RPCs: per route, how v1 names and shapes map onto the proto JSON. Routes
 * absent here use the proto JSON unchanged (without the v2 envelope).
 */
export interface V1Mapping {
  request?: (input: unknown) => unknown;
  response?: (json: Record<string, unknown>) => unknown;
}

type Json = Record<string, unknown>;

/** A v1 list: items under their own name, the cursor only while more pages exist, and the total. */
function v1List(itemsName: string, mapItem: (item: Json) => unknown = (item) => item) {
  return (json: Json) => {
    const pagination = (json.pagination ?? {}) as Json;
    return {
      [itemsName]: ((json.data ?? []) as Json[]).map(mapItem),
      ...(pagination.cursor ? { cursor: pagination.cursor } : {}),
      total: json.total ?? 0,
    };
  };
}

/** The v1 key record: `id` where v2 says `keyId`. */
function v1Key(key: Json): Json {
  const { keyId, ...rest } = key;
  return { id: keyId, ...rest };
}

export const v1Mappings: Record<string, V1Mapping> = {
  "/v1/apis.listKeys": { response: v1List("keys", v1Key) },
  "/v1/liveness": {
    response: () => ({
      status: "ok",
      services: { metrics: "ok", logger: "ok", ratelimit: "ok", usagelimit: "ok" },
    }),
  },
};
