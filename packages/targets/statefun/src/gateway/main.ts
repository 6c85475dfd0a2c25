/**
 * The gateway process (started by the launcher): reads the environment,
 * listens, logs its counters when requests went unanswered, and closes on
 * SIGTERM/SIGINT.
 */
import { readGatewayEnv } from "../env.ts";
import { createGateway } from "./server.ts";

const env = readGatewayEnv();
const gateway = await createGateway({
  brokers: env.KAFKA_BROKERS.split(","),
  ingressTopic: env.STATEFUN_INGRESS_TOPIC,
  egressTopic: env.STATEFUN_EGRESS_TOPIC,
  timeoutMs: env.GATEWAY_TIMEOUT_MS,
  trace: env.SFBENCH_TRACE,
  logLevel: env.LOG_LEVEL,
});
const { app } = gateway;

// Requests the job never answered are the lost requests of the 2023 study: say so in the log as they happen.
let reported = 0;
const reporter = setInterval(() => {
  const stats = gateway.stats();
  if (stats.noAnswer === reported) return;
  reported = stats.noAnswer;
  app.log.warn(
    { stats },
    `${stats.noAnswer} of ${stats.requests} requests got no answer from StateFun within ${env.GATEWAY_TIMEOUT_MS} ms (answered 504 no-answer)`,
  );
}, 5000);
reporter.unref();

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    clearInterval(reporter);
    app.log.info({ stats: gateway.stats() }, `${signal}: closing`);
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, "close failed");
        process.exit(1);
      },
    );
  });
}

await app.listen({ port: env.PORT, host: env.HOST });
gateway.ready.then(
  () => app.log.info(`statefun gateway ready on http://${env.HOST}:${env.PORT}`),
  () => {},
);
