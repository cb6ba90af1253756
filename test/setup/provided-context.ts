/**
 * Values the globalSetup files hand to tests through vitest's `provide`/`inject`. Imported by the setup
 * that provides them; any file under a tsconfig that includes test/** sees the augmentation.
 */
declare module "vitest" {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:<port>` of the private redis-server (or the REDIS_URL given from outside). */
    redisUrl: string;
  }
}

export {};
