/**
 * The gateway's client of Restate's HTTP ingress: `POST /<Object>/<key>/<handler>`
 * with a JSON body, over a pool of keep-alive connections. The handler's JSON
 * answer comes back as the body of a 200; any other answer means Restate or
 * the service failed (business refusals are values, see app/outcome.ts).
 */
import { Pool } from "undici";

export type ObjectName = "Product" | "User" | "Cart" | "Order" | "CoPurchase" | "Micro";
/** Stateless services (called without a key). */
export type ServiceName = "MicroDriver";

export interface CallOptions {
  /** Restate idempotency key: a retried call with the same key attaches to the first invocation */
  idempotencyKey?: string;
  /** `<traceId>-<spanId>` of the gateway span, for the handlers' spans; absent for a request that is not sampled, which then sends Restate no trace header */
  span?: string;
}

/** Restate answered something other than 200, or could not be reached. */
export class IngressError extends Error {
  override name = "IngressError";
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** Failures of the connection itself, after which a call with an idempotency key may be sent again. */
const RETRYABLE = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
const ATTEMPTS = 3;

export class Ingress {
  private readonly pool: Pool;

  constructor(url: string, connections: number) {
    this.pool = new Pool(url, { connections, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
  }

  call<T>(object: ObjectName, key: string, handler: string, input: unknown, opts: CallOptions = {}): Promise<T> {
    return this.post<T>(`/${object}/${encodeURIComponent(key)}/${handler}`, `${object}.${handler}`, input, opts);
  }

  /** A handler of a stateless service: `POST /<Service>/<handler>`. */
  callService<T>(service: ServiceName, handler: string, input: unknown, opts: CallOptions = {}): Promise<T> {
    return this.post<T>(`/${service}/${handler}`, `${service}.${handler}`, input, opts);
  }

  private async post<T>(path: string, what: string, input: unknown, opts: CallOptions): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (opts.idempotencyKey) headers["idempotency-key"] = opts.idempotencyKey;
    if (opts.span) headers["x-sfbench-span"] = opts.span;
    const body = JSON.stringify(input ?? null);
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.pool.request({ method: "POST", path, headers, body });
        const text = await res.body.text();
        if (res.statusCode !== 200) {
          throw new IngressError(`Restate answered ${res.statusCode} to ${what}: ${text.slice(0, 500)}`, res.statusCode);
        }
        return JSON.parse(text) as T;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (!opts.idempotencyKey || attempt >= ATTEMPTS || !code || !RETRYABLE.has(code)) {
          if (err instanceof IngressError) throw err;
          throw new IngressError(`Restate ingress: ${(err as Error).message}`, undefined);
        }
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
