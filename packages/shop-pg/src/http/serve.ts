/**
 * What a target's main.ts does once it has its server: listen, say when it is
 * ready, close gracefully on SIGTERM/SIGINT.
 */
import type { FastifyInstance } from "fastify";

export interface Servable {
  app: FastifyInstance;
  /** resolves once the target is ready (/health answers 200) */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface ListenOptions {
  port: number;
  host: string;
  /** the target's name, in the "ready" log line */
  name: string;
}

export async function serve(server: Servable, { port, host, name }: ListenOptions): Promise<void> {
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

  await app.listen({ port, host });
  server.ready.then(
    () => app.log.info(`${name} ready on http://${host}:${port}`),
    () => {},
  );
}
