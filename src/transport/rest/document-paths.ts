/** Where each REST dialect's OpenAPI document is served (GET, no root key); each document lists its own path too. */
export const DOCUMENT_PATHS = { v1: "/v1/openapi.json", v2: "/v2/openapi.json" } as const;
