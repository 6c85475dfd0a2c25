/**
 * The parts of the PostgreSQL-backed SPEC 2 targets (node-postgres, dbos)
 * that do not depend on the system: the Fastify gateway, the plain SQL
 * operations, tracing, the pool and the schema runner.
 */
export type { Micro, Shop, PingPongInput, DivideInput, BigInput } from "./app/api.ts";
export { createPool, transaction, isRetryable, type Db, type Tx, type PoolOptions } from "./app/db.ts";
export { addToCart, createCart, getCart, type CartHold } from "./app/carts.ts";
export { AppError, notFound, type AppErrorCode, type EntityName } from "./app/errors.ts";
export { DEFAULT_FREQ_LIMITS, freqItems, type FreqItemsLimits } from "./app/freq-items.ts";
export { histogram, merge, now, payload, random, since } from "./app/micro-kit.ts";
export { getOrder } from "./app/orders.ts";
export { createProduct, getProduct, upsertProduct, type ProductFields } from "./app/products.ts";
export { createSchema, createSchemaWithRetry, type SchemaScript } from "./app/schema.ts";
export { shopOperations, type ShopOperations } from "./app/shop.ts";
export { randomHexId, recordFunctionSpans, SpanWriter, traced, type LineSink, type Trace } from "./app/trace.ts";
export { addCredits, createUser, getUser } from "./app/users.ts";
export { parseEnv, ShopEnv } from "./env.ts";
export { buildHttpApp, type HttpAppOptions, type LogLevel } from "./http/app.ts";
export { serve, type ListenOptions, type Servable } from "./http/serve.ts";
