/**
 * The trivial loopback target of the headroom benchmark: every request is
 * answered 200 "ok" at once. GET /__stats answers {"served": n} (requests
 * answered so far, /__stats itself not counted).
 *
 *   node --import tsx bench/servers/ok-server.ts [--port N]
 *
 * Prints one line {"port": N} on stdout when it listens; stops on SIGTERM.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } });
let served = 0;
const server = createServer((req, res) => {
  if (req.url === "/__stats") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ served }));
    return;
  }
  served++;
  res.writeHead(200, { "content-type": "text/plain", "content-length": "2" }).end("ok");
});
// load generators keep their connections open between requests
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(values.port), "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + "\n");
});
process.on("SIGTERM", () => process.exit(0));
