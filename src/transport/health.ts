import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";

/**
 * The standard gRPC health service (grpc.health.v1). "" is the whole server; each Keyward service answers by its
 * full name. SERVING means the stores answer.
 */
export function registerHealth(router: ConnectRouter, options: { services: string[]; ready: () => Promise<boolean> }) {
  const known = new Set(["", ...options.services]);
  async function status(service: string) {
    if (!known.has(service)) throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    return (await options.ready()) ? Status.SERVING : Status.NOT_SERVING;
  }
  router.service(Health, {
    async check(request) {
      return { status: await status(request.service) };
    },
    async *watch(request, context) {
      yield { status: await status(request.service) };
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve(), { once: true }));
    },
    async list() {
      const ready = await options.ready();
      const statuses = Object.fromEntries([...known].map((name) => [name, { status: ready ? Status.SERVING : Status.NOT_SERVING }]));
      return { statuses };
    },
  });
}
