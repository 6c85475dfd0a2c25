/**
 * The gateway's fetch handler: route, run, and turn every error into the
 * `{"error", "message"}` shape, with a gateway span when tracing is on and
 * the request is sampled.
 */
import type { Env } from "../app/env.ts";
import { errorResponse, HttpError, json } from "./http.ts";
import { MICRO_ROUTES } from "./micro-routes.ts";
import { match, type RouteContext } from "./routes.ts";
import { openGatewaySpan } from "./tracing.ts";

export async function handle(request: Request, env: Env, exec: ExecutionContext): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/health" && request.method === "GET") return json({ status: "ok" });
  const micro = MICRO_ROUTES[`${request.method} ${url.pathname}`];
  if (micro) {
    try {
      return await micro(request, env, Object.fromEntries(url.searchParams));
    } catch (e) {
      if (e instanceof HttpError) return errorResponse(e.status, e.code, e.message);
      console.error(`${request.method} ${url.pathname} failed: ${(e as Error).stack ?? String(e)}`);
      return errorResponse(500, "internal", (e as Error).message ?? String(e));
    }
  }
  const segments = url.pathname.split("/").slice(1);
  const found = match(request.method, segments);
  if (!found) {
    const shown = url.pathname.length > 200 ? `${url.pathname.slice(0, 200)}...` : url.pathname;
    return errorResponse(404, "not-found", `no route ${request.method} ${shown}`);
  }
  const { route, params } = found;
  const span = env.SFBENCH_TRACE === "1" ? openGatewaySpan(request, route.entity, route.op) : undefined;
  if (span && params[0] !== undefined) span.key = safeDecode(params[0]);
  const context: RouteContext = {
    request,
    env,
    exec,
    params,
    trace: span?.context,
    setKey: (key) => {
      if (span) span.key = key;
    },
  };
  try {
    return await route.handle(context);
  } catch (e) {
    if (e instanceof HttpError) return errorResponse(e.status, e.code, e.message);
    console.error(`${request.method} ${url.pathname} failed: ${(e as Error).stack ?? String(e)}`);
    return errorResponse(500, "internal", (e as Error).message ?? String(e));
  } finally {
    span?.end();
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
