/**
 * The application API of SPEC section 2, as zod schemas.
 *
 * One copy for everyone: targets validate requests with the *Body schemas,
 * the conformance suite validates responses with the response schemas, and
 * docs/openapi.json is generated from both (see openapi.ts).
 */
import { z } from "zod";

/** Largest integer a target must accept (SPEC 2: ints above 2^31-1 are 400). */
export const MAX_INT = 2 ** 31 - 1;
/** Longest id a target must accept (SPEC 2: longer ids are 400). */
export const MAX_ID_LENGTH = 128;

/**
 * An id: 1-128 characters, none of them NUL (U+0000; many stores, PostgreSQL
 * text among them, cannot hold it, so SPEC 2 makes such an id a 400 for every target).
 */
export const Id = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH)
  .regex(/^[^\u0000]*$/, { message: "must not contain NUL (U+0000) characters" })
  .describe("opaque id: 1-128 characters, no NUL (U+0000)");
export const NonNegInt = z.number().int().min(0).max(MAX_INT);
export const PosInt = z.number().int().min(1).max(MAX_INT);
/** Stored values (stock, credits, totals) may grow past 2^31-1 through additions: responses only need safe integers. */
export const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

// ---- request bodies (unknown fields are ignored: z.object strips them) ----

export const ProductCreateBody = z.object({
  price: NonNegInt.optional().describe("price per unit, default 0"),
  stock: NonNegInt.optional().describe("initial stock, default 0"),
});
/** PATCH /products/{id}: upsert; price is set, stock is added. */
export const ProductPatchBody = ProductCreateBody;
export const UserCreateBody = z.object({
  credits: NonNegInt.optional().describe("initial credits, default 0"),
});
export const AddCreditsBody = z.object({ credits: PosInt });
export const AddToCartBody = z.object({ productId: Id, amount: PosInt });
export const CheckoutBody = z.object({ cartId: Id, userId: Id });

export const FREQ_TOP = { min: 1, max: 100, default: 3 } as const;
export const FREQ_DEPTH = { min: 1, max: 20, default: 1 } as const;

/** Query of GET /products/{id}/freq-items. Strings in, validated ints out. */
export const FreqItemsQuery = z.object({
  top: z.coerce.number().int().min(FREQ_TOP.min).max(FREQ_TOP.max).default(FREQ_TOP.default),
  depth: z.coerce.number().int().min(FREQ_DEPTH.min).max(FREQ_DEPTH.max).default(FREQ_DEPTH.default),
});

// ---- responses ----

export const CreatedId = Id.describe("the new entity's id, as a JSON string");
export const Product = z.object({ id: Id, price: NonNegInt, stock: Count });
export const User = z.object({ id: Id, credits: Count });
export const CartItem = z.object({ productId: Id, amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const Cart = z.object({ id: Id, items: z.array(CartItem), checkedOut: z.boolean() });
export const CheckoutResult = z.object({ orderId: Id, total: Count });
export const OrderStatus = z.enum(["completed", "failed"]);
export const Order = z.object({
  id: Id,
  cartId: Id,
  userId: Id,
  status: OrderStatus,
  total: Count,
  failure: z.string().optional(),
});
export const FreqItems = z.array(Id).describe("a set of product ids, any order");
export const Health = z.unknown();

/** Error codes a target answers with (the `error` field of an error body). */
export const ErrorCode = z.enum([
  "bad-request",
  "not-found",
  "empty-cart",
  "cart-checked-out",
  "insufficient-stock",
  "insufficient-credits",
  "starting",
  "internal",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;
/** Every error response: `{"error": "<code>", "message": "..."}`. */
export const ErrorBody = z.object({ error: z.string().min(1), message: z.string() });

/** The business failures of checkout (SPEC 2.1), all answered with 409. */
export const CheckoutConflict = z.enum(["empty-cart", "cart-checked-out", "insufficient-stock", "insufficient-credits"]);

export type Product = z.infer<typeof Product>;
export type User = z.infer<typeof User>;
export type Cart = z.infer<typeof Cart>;
export type CartItem = z.infer<typeof CartItem>;
export type Order = z.infer<typeof Order>;
export type CheckoutResult = z.infer<typeof CheckoutResult>;
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * The route table of SPEC 2: the single description of the API, from which
 * docs/openapi.json is generated and against which the conformance suite
 * checks status codes. Every route with an `{id}` lists 400 (an id that is
 * too long or contains NUL). A body whose fields are all optional may be left
 * out (no body means `{}`); the others are required.
 */
export interface RouteDef {
  method: "GET" | "POST" | "PATCH";
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  ok: z.ZodType | null;
  errors: number[];
}

export const routes: RouteDef[] = [
  { method: "GET", path: "/health", summary: "200 once every route can be served, 503 while starting", ok: Health, errors: [503] },
  { method: "POST", path: "/products", summary: "Create a product", body: ProductCreateBody, ok: CreatedId, errors: [400] },
  { method: "PATCH", path: "/products/{id}", summary: "Upsert a product: price is set, stock is added", body: ProductPatchBody, ok: CreatedId, errors: [400] },
  { method: "GET", path: "/products/{id}", summary: "Read a product", ok: Product, errors: [400, 404] },
  {
    method: "GET",
    path: "/products/{id}/freq-items",
    summary: "Frequently bought together (SPEC 2.2)",
    query: FreqItemsQuery,
    ok: FreqItems,
    errors: [400, 404],
  },
  { method: "POST", path: "/users", summary: "Create a user", body: UserCreateBody, ok: CreatedId, errors: [400] },
  { method: "GET", path: "/users/{id}", summary: "Read a user", ok: User, errors: [400, 404] },
  { method: "PATCH", path: "/users/{id}/credits/add", summary: "Add credits to a user", body: AddCreditsBody, ok: null, errors: [400, 404] },
  { method: "POST", path: "/shopping-carts", summary: "Create an empty cart", ok: CreatedId, errors: [] },
  { method: "GET", path: "/shopping-carts/{id}", summary: "Read a cart", ok: Cart, errors: [400, 404] },
  {
    method: "POST",
    path: "/shopping-carts/{id}/products",
    summary: "Add an amount of a product to a cart; amounts accumulate",
    body: AddToCartBody,
    ok: null,
    errors: [400, 404, 409],
  },
  { method: "POST", path: "/orders/checkout", summary: "Check a cart out (SPEC 2.1)", body: CheckoutBody, ok: CheckoutResult, errors: [400, 404, 409] },
  { method: "GET", path: "/orders/{id}", summary: "Read an order", ok: Order, errors: [400, 404] },
];

/** Turns a zod error into one readable line: `field: problem; field: problem`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`).join("; ");
}
