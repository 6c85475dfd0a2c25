/**
 * What the HTTP gateway (src/http) calls: the SPEC 2 operations (Shop) and
 * the SPEC 8 microbenchmark functions (Micro). Each target implements them
 * over its system; they throw AppError for not-found and business conflicts.
 */
import type { Cart, CheckoutResult, Order, Product, User } from "@sfbench/core";
import type { ProductFields } from "./products.ts";
import type { Trace } from "./trace.ts";

export interface Shop {
  createProduct(fields: ProductFields, trace?: Trace): Promise<string>;
  upsertProduct(id: string, fields: ProductFields, trace?: Trace): Promise<string>;
  getProduct(id: string, trace?: Trace): Promise<Product>;
  freqItems(id: string, top: number, depth: number, trace?: Trace): Promise<string[]>;
  createUser(credits: number | undefined, trace?: Trace): Promise<string>;
  getUser(id: string, trace?: Trace): Promise<User>;
  addCredits(id: string, credits: number, trace?: Trace): Promise<void>;
  createCart(trace?: Trace): Promise<string>;
  getCart(id: string, trace?: Trace): Promise<Cart>;
  addToCart(cartId: string, productId: string, amount: number, trace?: Trace): Promise<void>;
  checkout(cartId: string, userId: string, trace?: Trace): Promise<CheckoutResult>;
  getOrder(id: string, trace?: Trace): Promise<Order>;
}

export interface PingPongInput {
  pairs: number;
  messages: number;
  bytes: number;
}
export interface DivideInput {
  items: number;
  fanout: number;
  leaf: number;
  seed: number;
}
export interface BigInput {
  entities: number;
  messages: number;
  seed: number;
}

export interface Micro {
  empty(key: string): Promise<{ handlerNs: number }>;
  math(key: string, n: number): Promise<{ n: number; pi: number; handlerNs: number }>;
  sleep(key: string, ms: number): Promise<{ ms: number; handlerNs: number }>;
  io(key: string, bytes: number): Promise<{ key: string; bytes: number; sha256: string; handlerNs: number }>;
  pingpong(input: PingPongInput): Promise<PingPongInput & { totalNs: number; histogram: Array<[number | null, number]>; handlerNs: number }>;
  divide(input: DivideInput): Promise<{ items: number; first: number; last: number; checksum: number; entities: number; totalNs: number; handlerNs: number }>;
  big(input: BigInput): Promise<{ entities: number; messages: number; delivered: number; totalNs: number; handlerNs: number }>;
}
