/**
 * The application API (SPEC 2) as seen by the workloads: every request carries
 * a fresh W3C traceparent (sampled only when the step is the traced phase), an
 * `op` tag, a 10 s timeout, and a check named as a sentence. Response bodies
 * are read only where the script needs them.
 */
import { check } from "k6";
import http, { type RefinedResponse, type ResponseType } from "k6/http";
import { rngFor, traceIdOf, traceparent } from "../../src/random.ts";

/** The `op` tag of every request. */
export type Op = "create-user" | "add-credits" | "create-cart" | "add-to-cart" | "checkout" | "freq-items" | "seed-product";

/** A timeout is an error (status 0, error_code 1050). */
export const REQUEST_TIMEOUT = "10s";

/**
 * Trace ids must differ between runs even with the same SEED, so they come
 * from their own per-VU stream that no workload choice depends on.
 */
const traceRng = rngFor(Math.floor(Math.random() * 0x100000000), Date.now(), typeof __VU === "number" ? __VU : 0);

// Response callbacks must be made in the init context.
// Always pass one: `responseCallback: undefined` turns off http_req_failed and the expected_response tag.
const EXPECTED = {
  ok: http.expectedStatuses(200),
  "ok-or-conflict": http.expectedStatuses(200, 409),
  "ok-or-not-found": http.expectedStatuses(200, 404),
};

export interface Sent<RT extends ResponseType> {
  res: RefinedResponse<RT>;
  /** The trace id sent in the traceparent header. */
  traceId: string;
}

interface CallOptions<RT extends ResponseType> {
  op: Op;
  tags?: Record<string, string>;
  /** "text" to read the body; default "none" (options.discardResponseBodies). */
  responseType: RT;
  /** Statuses that count as expected (http_req_failed, expected_response); default 200 only. */
  expect?: keyof typeof EXPECTED;
}

export class Api {
  /** traced: the traceparent's flags say sampled, so a traced target writes spans for these requests */
  constructor(
    private readonly baseUrl: string,
    private readonly traced = false,
  ) {}

  send<RT extends ResponseType>(method: "GET" | "POST" | "PATCH", path: string, body: object | null, call: CallOptions<RT>): Sent<RT> {
    const header = traceparent(traceRng, this.traced);
    const headers: Record<string, string> = { traceparent: header };
    if (body !== null) headers["content-type"] = "application/json";
    const res = http.request(method, `${this.baseUrl}${path}`, body === null ? null : JSON.stringify(body), {
      headers,
      tags: { op: call.op, ...call.tags },
      timeout: REQUEST_TIMEOUT,
      responseType: call.responseType,
      responseCallback: EXPECTED[call.expect ?? "ok"],
    });
    return { res, traceId: traceIdOf(header) };
  }

  /** A create endpoint: 200 with the new id as a JSON string, or undefined. */
  private create(path: string, body: object | null, op: Op): string | undefined {
    const { res } = this.send("POST", path, body, { op, responseType: "text" });
    const id = res.status === 200 ? parseJsonString(res.body) : undefined;
    check(res, { [`${op} answers 200 with an id`]: () => id !== undefined }, { op });
    return id;
  }

  private ok(method: "POST" | "PATCH", path: string, body: object, op: Op): boolean {
    const { res } = this.send(method, path, body, { op, responseType: "none" });
    return check(res, { [`${op} answers 200`]: (r) => r.status === 200 }, { op });
  }

  createUser(credits?: number): string | undefined {
    return this.create("/users", credits === undefined ? {} : { credits }, "create-user");
  }

  addCredits(userId: string, credits: number): boolean {
    return this.ok("PATCH", `/users/${encodeURIComponent(userId)}/credits/add`, { credits }, "add-credits");
  }

  createCart(): string | undefined {
    return this.create("/shopping-carts", null, "create-cart");
  }

  addToCart(cartId: string, productId: string, amount: number): boolean {
    return this.ok("POST", `/shopping-carts/${encodeURIComponent(cartId)}/products`, { productId, amount }, "add-to-cart");
  }

  /** POST /orders/checkout, tagged with the cart size; 409 counts as an expected answer only if `conflictExpected`. */
  checkout(cartId: string, userId: string, cartSize: number, conflictExpected: boolean): CheckoutAnswer {
    const { res, traceId } = this.send(
      "POST",
      "/orders/checkout",
      { cartId, userId },
      { op: "checkout", tags: { cart_size: String(cartSize) }, responseType: "text", expect: conflictExpected ? "ok-or-conflict" : "ok" },
    );
    const answer: CheckoutAnswer = { status: res.status, traceId };
    const body = parseJson(res.body);
    if (res.status === 200 && isObject(body)) {
      if (typeof body.orderId === "string") answer.orderId = body.orderId;
      if (typeof body.total === "number") answer.total = body.total;
    } else if (res.status !== 200 && isObject(body) && typeof body.error === "string") {
      answer.error = body.error;
    }
    if (conflictExpected) check(res, { "checkout answers 200 or 409": (r) => r.status === 200 || r.status === 409 }, { op: "checkout" });
    else check(res, { "checkout answers 200 (stock and credits cannot run out)": (r) => r.status === 200 }, { op: "checkout" });
    return answer;
  }

  freqItems(productId: string, top: number, depth: number, shape: string): boolean {
    const { res } = this.send("GET", `/products/${encodeURIComponent(productId)}/freq-items?top=${top}&depth=${depth}`, null, {
      op: "freq-items",
      tags: { shape, top: String(top), depth: String(depth) },
      responseType: "none",
    });
    return check(res, { "freq-items answers 200": (r) => r.status === 200 }, { op: "freq-items" });
  }

  /** GET /products/{id} (tagged seed-product: only the seeding reads products): the product, null on 404, undefined on failure. */
  readProduct(productId: string): { price: number; stock: number } | null | undefined {
    const { res } = this.send("GET", `/products/${encodeURIComponent(productId)}`, null, {
      op: "seed-product",
      responseType: "text",
      expect: "ok-or-not-found",
    });
    const body = parseJson(res.body);
    const product =
      res.status === 200 && isObject(body) && typeof body.price === "number" && typeof body.stock === "number"
        ? { price: body.price, stock: body.stock }
        : undefined;
    check(res, { "reading a product answers 200 or 404": () => product !== undefined || res.status === 404 }, { op: "seed-product" });
    if (res.status === 404) return null;
    return product;
  }

  /** PATCH /products/{id}: upsert, price set, stock added. */
  patchProduct(productId: string, price: number, addStock: number): boolean {
    return this.ok("PATCH", `/products/${encodeURIComponent(productId)}`, { price, stock: addStock }, "seed-product");
  }
}

export interface CheckoutAnswer {
  /** HTTP status; 0 when the request failed or timed out (outcome unknown). */
  status: number;
  traceId: string;
  orderId?: string;
  total?: number;
  /** The `error` code of a non-200 JSON answer. */
  error?: string;
}

function parseJson(body: unknown): unknown {
  if (typeof body !== "string" || body === "") return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function parseJsonString(body: unknown): string | undefined {
  const value = parseJson(body);
  return typeof value === "string" && value !== "" ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
