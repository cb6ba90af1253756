import type { ClientSession, MongoClient } from "mongodb";

/**
 * How the adapter writes changes that span documents. On a replica set or sharded cluster `run` is one transaction
 * (the driver retries it on transient errors within timeoutMS); on a standalone server there are no transactions, so
 * `run` calls `steps` without a session and the steps' order is the only protection: every multi-document write here
 * lists first the part whose failure is harmless and whose repetition finishes the job (see rbac.ts, documents.ts).
 */
export interface AtomicWrites {
  readonly transactional: boolean;
  run<T>(steps: (session: ClientSession | undefined) => Promise<T>): Promise<T>;
  /**
   * One transaction started and committed by hand, without `withTransaction`: driver 7 refuses multi-document
   * operations (insertMany, bulkWrite) inside `withTransaction` when the client has timeoutMS, but takes them in a
   * transaction of their own. Not retried on transient errors: for steps whose failure the caller reports as is.
   * Only where `transactional`.
   */
  runOnce<T>(steps: (session: ClientSession) => Promise<T>): Promise<T>;
}

/** AtomicWrites over `client`; `transactional` comes from the deployment's `hello` (supportsTransactions). */
export function atomicWritesOver(client: MongoClient, transactional: boolean): AtomicWrites {
  return {
    transactional,
    async run(steps) {
      if (!transactional) return steps(undefined);
      const session = client.startSession();
      try {
        return await session.withTransaction(() => steps(session));
      } finally {
        await session.endSession();
      }
    },
    async runOnce(steps) {
      const session = client.startSession();
      try {
        session.startTransaction();
        const result = await steps(session);
        await session.commitTransaction();
        return result;
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        throw error;
      } finally {
        await session.endSession();
      }
    },
  };
}
