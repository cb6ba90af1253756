// Preloaded (`node --import`) into a server by bench/alloc.ts: V8's sampling heap profiler, started by the first
// SIGUSR2 and stopped by the next, which writes the profile to ALLOC_PROFILE_PATH. It counts every sampled
// allocation, also those a GC collected since, so the profile is what the process allocated in between.
import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { isMainThread } from "node:worker_threads";

if (isMainThread && process.env.ALLOC_PROFILE_PATH) {
  const session = new Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  let sampling = false;
  process.on("SIGUSR2", async () => {
    if (!sampling) {
      sampling = true;
      await post("HeapProfiler.enable");
      await post("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      writeFileSync(`${process.env.ALLOC_PROFILE_PATH}.started`, "");
    } else {
      const { profile } = await post("HeapProfiler.stopSampling");
      // Whole or not at all: the bench reads it as soon as it exists.
      writeFileSync(`${process.env.ALLOC_PROFILE_PATH}.part`, JSON.stringify(profile));
      renameSync(`${process.env.ALLOC_PROFILE_PATH}.part`, process.env.ALLOC_PROFILE_PATH);
    }
  });
}
