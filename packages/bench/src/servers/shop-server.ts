/**
 * The trivial loopback shop of the generator-cost benchmark: answers every
 * request of the checkout workload (SPEC 2) at once and correctly, so that
 * what the benchmark measures is k6's own work per checkout. Creates answer
 * a fresh id, a checkout answers an order; nothing is stored.
 *
 *   node --import tsx bench/servers/shop-server.ts [--port N]
 *
 * Prints one line {"port": N} on stdout when it listens; stops on SIGTERM.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } });
let next = 0;
const server = createServer((req, res) => {
  // the body is not read for what it says, but it must be consumed before the connection is reused
  req.resume();
  req.on("end", () => {
    let body = "";
    if (req.method === "POST" && req.url === "/users") body = JSON.stringify(`u${++next}`);
    else if (req.method === "POST" && req.url === "/shopping-carts") body = JSON.stringify(`c${++next}`);
    else if (req.method === "POST" && req.url === "/orders/checkout") body = JSON.stringify({ orderId: `o${++next}`, total: 0 });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  });
});
// load generators keep their connections open between requests
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(values.port), "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + "\n");
});
process.on("SIGTERM", () => process.exit(0));
