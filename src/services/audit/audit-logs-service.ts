import type { AuditLogsService } from "../../../gen/keyward/v1/audit_logs_pb.js";
import { invalid } from "../../domain/errors.js";
import type { AuditLogStore } from "../../store/ports/audit.js";
import { authorize, type ServiceHandlers } from "../context.js";
import { paginate } from "../pagination.js";

/** auditLogs.*: the audit trail of the caller's own workspace. */
export function createAuditLogsService(deps: { auditLogs: AuditLogStore }): ServiceHandlers<typeof AuditLogsService> {
  return {
    async listAuditLogs(request, { principal }) {
      authorize(principal, { resourceType: "workspace", action: "read_audit_log" });
      const start = request.start === undefined ? undefined : Number(request.start);
      const end = request.end === undefined ? undefined : Number(request.end);
      if (start !== undefined && end !== undefined && end <= start) {
        throw invalid(`end (${end}) must be after start (${start}).`, [{ location: "end", message: "must be after start" }]);
      }
      const query = {
        workspaceId: principal.workspaceId,
        start,
        end,
        actor: request.actor,
        actions: request.actions,
        resourceType: request.resourceType,
        resourceId: request.resourceId,
        newestFirst: request.order === "newest_first",
      };
      const page = await paginate(request, (p) => deps.auditLogs.list(query, p));
      return {
        data: page.items.map((record) => ({ ...record, time: BigInt(record.time) })),
        pagination: { cursor: page.cursor, hasMore: page.hasMore },
      };
    },
  };
}
