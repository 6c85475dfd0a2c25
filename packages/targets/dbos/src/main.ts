/** Entry point: read the environment, listen, close gracefully on SIGTERM/SIGINT. */
import { readEnv } from "./env.ts";
import { createServer } from "./server.ts";

const env = readEnv();
const server = await createServer({
  databaseUrl: env.DATABASE_URL,
  trace: env.SFBENCH_TRACE,
  poolSize: env.PG_POOL_SIZE,
  systemPoolSize: env.DBOS_POOL_SIZE,
  logLevel: env.LOG_LEVEL,
});
const { app } = server;

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    app.log.info(`${signal}: closing`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, "close failed");
        process.exit(1);
      },
    );
  });
}

await app.listen({ port: env.PORT, host: env.HOST });
server.ready.then(
  () => app.log.info(`dbos ready on http://${env.HOST}:${env.PORT}`),
  () => {},
);
