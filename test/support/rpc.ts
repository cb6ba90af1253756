import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { recordRpcSecrets } from "./secret-record.js";

/**
 * The three RPC protocols Keyward serves, each a real client over a real socket. They record the secrets they send
 * and receive for the end-of-run log check.
 */
export function rpcTransports(baseUrl: string): Record<"connect" | "grpc" | "grpcWeb", Transport> {
  const interceptors = [recordRpcSecrets];
  return {
    connect: createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
    grpc: createGrpcTransport({ baseUrl, interceptors }),
    grpcWeb: createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  };
}

/** A client of `service` that sends `rootKey` as the bearer token on every call. */
export function rpcClient<S extends DescService>(service: S, transport: Transport): Client<S> {
  return createClient(service, transport);
}

export const bearer = (rootKey: string) => ({ headers: { authorization: `Bearer ${rootKey}` } });
