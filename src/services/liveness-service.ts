import type { LivenessService } from "../../gen/keyward/v1/liveness_pb.js";
import type { ServiceHandlers } from "./context.js";

/** liveness: the process answers. Readiness of the stores is the gRPC health service's job. */
export function createLivenessService(): ServiceHandlers<typeof LivenessService> {
  return {
    async liveness() {
      return { message: "OK" };
    },
  };
}
