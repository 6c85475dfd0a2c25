/** Entry point of the gateway process: listen on PORT, call Restate's ingress, close on SIGTERM/SIGINT. */
import { readGatewayEnv } from "../env.ts";
import { SpanWriter } from "../app/span-writer.ts";
import { buildGateway } from "./app.ts";
import { Ingress } from "./ingress.ts";

const env = readGatewayEnv();
const ingress = new Ingress(env.RESTATE_INGRESS_URL, env.INGRESS_CONNECTIONS);
const spans = env.SFBENCH_TRACE ? new SpanWriter(process.stdout) : undefined;
const app = buildGateway({ ingress, spans, logLevel: env.LOG_LEVEL });

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    app.close().then(
      async () => {
        spans?.flush();
        await ingress.close();
        process.exit(0);
      },
      () => process.exit(1),
    );
  });
}

await app.listen({ port: env.PORT, host: env.HOST });
