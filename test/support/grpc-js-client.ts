import { create, fromBinary, toBinary, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import {
  credentials, makeGenericClientConstructor, Metadata, type CallOptions, type ChannelCredentials, type ChannelOptions, type Client, type ServiceError,
} from "@grpc/grpc-js";
import { recordSecret, recordSecretsIn } from "./secret-record.js";

/** The answer of one unary call made with @grpc/grpc-js: the message or the error, and the response headers. */
export type GrpcJsOutcome<T> =
  | { ok: true; message: T; headers: Metadata }
  | { ok: false; error: ServiceError; headers: Metadata | undefined };

/**
 * A @grpc/grpc-js client of `service` (an independent gRPC implementation: its own HTTP/2 framing, deadlines and
 * compression), with messages (de)serialised by the generated protobuf-es schemas. Cleartext (h2c) unless
 * `channelCredentials` says otherwise (`credentials.createSsl(ca)` for TLS).
 */
export function grpcJsClient<T extends GenServiceMethods>(
  service: GenService<T>,
  address: string,
  options: ChannelOptions = {},
  channelCredentials: ChannelCredentials = credentials.createInsecure(),
) {
  const definition = Object.fromEntries(service.methods.map((method) => [method.localName, {
    path: `/${service.typeName}/${method.name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (message: object) => Buffer.from(toBinary(method.input, create(method.input, message as never))),
    requestDeserialize: (bytes: Buffer) => fromBinary(method.input, bytes),
    responseSerialize: (message: object) => Buffer.from(toBinary(method.output, create(method.output, message as never))),
    responseDeserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
  }]));
  const Constructor = makeGenericClientConstructor(definition, service.typeName);
  const client = new Constructor(address, channelCredentials, options) as Client & Record<string, Function>;

  return {
    call<K extends keyof T & string>(
      method: K,
      input: MessageInitShape<T[K]["input"]>,
      options: { rootKey?: string; metadata?: Record<string, string | Buffer>; deadlineMs?: number } = {},
    ): Promise<GrpcJsOutcome<MessageShape<T[K]["output"]>>> {
      const metadata = new Metadata();
      // Recorded for the end-of-run log check, as the other test clients do.
      recordSecret(options.rootKey);
      recordSecretsIn(input);
      if (options.rootKey) metadata.set("authorization", `Bearer ${options.rootKey}`);
      for (const [name, value] of Object.entries(options.metadata ?? {})) metadata.set(name, value);
      const callOptions: CallOptions = options.deadlineMs === undefined ? {} : { deadline: Date.now() + options.deadlineMs };
      return new Promise((resolve) => {
        let headers: Metadata | undefined;
        const call = client[method](input, metadata, callOptions, (error: ServiceError | null, message: MessageShape<T[K]["output"]>) => {
          if (!error) recordSecretsIn(message);
          resolve(error ? { ok: false, error, headers } : { ok: true, message, headers: headers as Metadata });
        });
        call.on("metadata", (received: Metadata) => (headers = received));
      });
    },
    close: () => client.close(),
  };
}
