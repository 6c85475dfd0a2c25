/**
 * A small HTTP client for black-box checks. It remembers every exchange so
 * that a failing check can show the request and response that failed.
 */
import { Agent, fetch } from "undici";

/**
 * One connection per request. A target may close a connection after it
 * answered a malformed request (workerd does), and a pooled connection that
 * the server closed fails the next request sent on it with a reset; fetch
 * retries that only for idempotent methods, so a POST check failed for the
 * checker's reuse, not for the target's answer.
 */
const NO_REUSE = new Agent({ pipelining: 0 });

export interface Exchange {
  method: string;
  path: string;
  requestBody?: string;
  status: number;
  responseBody: string;
  ms: number;
}

export interface Response<T = unknown> {
  status: number;
  text: string;
  /** the parsed JSON body, or undefined when the body is not JSON */
  json: T;
}

export interface RequestOptions {
  /** a value to send as JSON, or raw text with `raw: true` */
  body?: unknown;
  raw?: boolean;
  timeoutMs?: number;
}

export class HttpError extends Error {}

export class Client {
  readonly exchanges: Exchange[] = [];

  constructor(
    readonly baseUrl: string,
    private readonly defaultTimeoutMs = 10_000,
  ) {}

  /**
   * The options of one of `n` requests sent at once on one item (a product, a
   * cart, a user). A system may serve them one after another, so the last answer
   * may wait on all the others; the per-request timeout is there to catch a
   * hang, not to rank how fast a line moves, so it grows with the line: one
   * default per ten requests in it.
   */
  inLine(n: number): RequestOptions {
    return { timeoutMs: this.defaultTimeoutMs * Math.max(1, Math.ceil(n / 10)) };
  }

  /** Forget recorded exchanges (each check starts with an empty list). */
  reset(): void {
    this.exchanges.length = 0;
  }

  last(): Exchange | undefined {
    return this.exchanges.at(-1);
  }

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<Response<T>> {
    const hasBody = opts.body !== undefined;
    const bodyText = hasBody ? (opts.raw ? String(opts.body) : JSON.stringify(opts.body)) : undefined;
    const started = performance.now();
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    let res: Awaited<ReturnType<typeof fetch>>;
    try {
      res = await fetch(this.baseUrl + path, {
        method,
        headers: hasBody ? { "content-type": "application/json" } : {},
        body: bodyText,
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: NO_REUSE,
      });
    } catch (e) {
      const err = e as Error;
      const reason =
        err.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : `connection failed: ${(err.cause as Error | undefined)?.message ?? err.message}`;
      this.exchanges.push({ method, path, requestBody: bodyText, status: 0, responseBody: reason, ms: performance.now() - started });
      throw new HttpError(`${method} ${path}: ${reason}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      const err = e as Error;
      const reason =
        err.name === "TimeoutError"
          ? `no complete answer within ${timeoutMs} ms (status ${res.status} arrived, the body did not finish)`
          : `reading the body failed: ${err.message}`;
      this.exchanges.push({ method, path, requestBody: bodyText, status: res.status, responseBody: reason, ms: performance.now() - started });
      throw new HttpError(`${method} ${path}: ${reason}`);
    }
    this.exchanges.push({ method, path, requestBody: bodyText, status: res.status, responseBody: text, ms: performance.now() - started });
    let json: unknown;
    try {
      json = text.length ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json: json as T };
  }

  get<T = unknown>(path: string, opts?: RequestOptions) {
    return this.request<T>("GET", path, opts);
  }
  post<T = unknown>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>("POST", path, { ...opts, body });
  }
  patch<T = unknown>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>("PATCH", path, { ...opts, body });
  }
}
