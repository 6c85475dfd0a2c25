/**
 * Entry point of the service endpoint process: the Virtual Objects served over
 * HTTP/2 on 127.0.0.1:SERVICE_PORT to the Restate server; span lines on stdout
 * when SFBENCH_TRACE=1.
 */
import "./polyfill.ts";
import { createServer } from "node:http2";
import { readServiceEnv } from "../env.ts";
import { createEndpoint } from "./endpoint.ts";
import { enableSpans } from "./trace.ts";

const env = readServiceEnv();
const spans = env.SFBENCH_TRACE ? enableSpans(process.stdout) : undefined;
const server = createServer(createEndpoint().http2Handler());
server.on("error", (err) => {
  console.error(`restate endpoint: ${err.message}`);
  process.exit(1);
});
server.listen(env.SERVICE_PORT, "127.0.0.1", () => console.error(`restate endpoint listening on 127.0.0.1:${env.SERVICE_PORT}`));

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    spans?.flush();
    server.close();
    process.exit(0);
  });
}
