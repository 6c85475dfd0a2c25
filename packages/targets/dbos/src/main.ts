/** Entry point: read the environment, listen, close gracefully on SIGTERM/SIGINT (which shuts DBOS down). */
import { serve } from "@sfbench/shop-pg";
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
await serve(server, { port: env.PORT, host: env.HOST, name: "dbos" });
