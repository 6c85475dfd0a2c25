/**
 * Entry point of the balancer process (balancer.ts), started by startTarget:
 *   node --import tsx balancer-main.ts --port <port> --backends-file <file>
 * SIGHUP re-reads the backends file; SIGTERM closes and exits.
 */
import { parseArgs } from "node:util";
import { readBackends, startBalancer } from "./balancer.ts";

const { values } = parseArgs({ options: { port: { type: "string" }, "backends-file": { type: "string" } } });
const port = Number(values.port);
const file = values["backends-file"];
if (!Number.isInteger(port) || port < 1 || port > 65535 || !file) {
  process.stderr.write("usage: balancer-main.ts --port <1-65535> --backends-file <file>\n");
  process.exit(2);
}
const balancer = await startBalancer({ port, backends: readBackends(file) });
process.stdout.write(`balancer on 127.0.0.1:${balancer.port} -> ${balancer.backends().join(", ")}\n`);
process.on("SIGHUP", () => {
  try {
    balancer.setBackends(readBackends(file));
    process.stdout.write(`backends: ${balancer.backends().join(", ")}\n`);
  } catch (e) {
    process.stderr.write(`SIGHUP: kept the backends: ${(e as Error).message}\n`);
  }
});
process.once("SIGTERM", () => void balancer.close().then(() => process.exit(0)));
