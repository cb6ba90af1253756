// The third-party .proto files our protos import, assembled from installed npm packages (works offline):
// google/api (HTTP bindings), google/rpc (error details), grpc/health, grpc/reflection, and buf/validate printed back from
// protovalidate's embedded descriptor. `npm run generate` and the client-stub tests both use this.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { file_buf_validate_validate } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { printSchemaOnlyProto } from "./print-proto.mjs";

const require = createRequire(import.meta.url);
const packageDir = (name) => dirname(require.resolve(`${name}/package.json`));

/** Writes the dependency protos under `dir` (e.g. `dir/google/api/annotations.proto`). */
export function writeProtoDeps(dir) {
  const copy = (pkg, from, to) => {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    cpSync(join(packageDir(pkg), from), join(dir, to));
  };
  for (const file of ["annotations.proto", "http.proto"]) copy("google-proto-files", `google/api/${file}`, `google/api/${file}`);
  // google.rpc.Status and BadRequest: the rich error details gRPC and Connect errors carry.
  for (const file of ["status.proto", "error_details.proto"]) copy("google-proto-files", `google/rpc/${file}`, `google/rpc/${file}`);
  copy("grpc-health-check", "proto/health/v1/health.proto", "grpc/health/v1/health.proto");
  // Server reflection, both versions clients use (grpcurl asks v1 first, older tools v1alpha).
  for (const version of ["v1", "v1alpha"]) {
    copy("@grpc/reflection", `build/proto/grpc/reflection/${version}/reflection.proto`, `grpc/reflection/${version}/reflection.proto`);
  }
  // protovalidate's runtime ships its schema only as an embedded descriptor: print it back as a .proto.
  mkdirSync(join(dir, "buf/validate"), { recursive: true });
  writeFileSync(join(dir, "buf/validate/validate.proto"), printSchemaOnlyProto(file_buf_validate_validate.proto));
}
