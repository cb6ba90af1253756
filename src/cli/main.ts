import { runCli } from "./run-cli.js";

// Entry of `keyward` (bin/keyward.mjs): the process's argv and environment, lines to stdout/stderr.
// exitCode rather than exit(), so buffered output is flushed before the process ends.
process.exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  tty: process.stderr.isTTY === true,
});
