/**
 * The consistency audit (SPEC 2.3): after the load, read back what the
 * workload touched and count anomalies by kind. Reads go over the same HTTP
 * API as the load (GET routes), with a bounded number in flight.
 */
import { coPurchaseCounts, completedOrders, expectedTop, retracted, type ProductIdOf } from "./expected.ts";
import type { CheckoutRecord } from "./records.ts";
import { unwarrantedRejections } from "./warrant.ts";

export const ANOMALY_KINDS = [
  "stock-drift",
  "negative-stock",
  "credit-drift",
  "negative-credits",
  "ok-without-completed-order",
  "wrong-total",
  "rejected-with-side-effects",
  // a 409 whose claim (no stock, no credits, empty or checked-out cart) the state read after the load contradicts
  "unwarranted-rejection",
  "co-purchase-wrong",
  // the target did not answer a read of its own state (5xx, no answer): nothing can be verified for that entity, which is a failure of its own
  "unreadable",
] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

export interface AuditInput {
  baseUrl: string;
  /** checkouts of the audited phase: stock and credits are checked against them */
  records: CheckoutRecord[];
  /** every checkout since the target started (co-purchase counts accumulate over the whole run) */
  allRecords?: CheckoutRecord[];
  idOf: ProductIdOf;
  priceOf: (productId: string) => number;
  /** stock of the products in scope right before the audited phase */
  stockBefore: Map<string, number>;
  /** stock added to products during the phase (e.g. by a workload's setup) */
  stockAdded?: Map<string, number>;
  /** at most this many records get their user, cart and order read (all ambiguous ones always are) */
  sampleRecords?: number;
  /** products whose frequently-bought-together answer is compared */
  coPurchaseSample?: number;
  /** time for off-path co-purchase updates to land before they are compared */
  quietMs?: number;
  /**
   * how long a checkout that got no clear answer may still be running (a
   * workflow past the client's timeout) before what its cart and user show is
   * counted: they are read again until they agree; default 15 s. While such
   * checkouts keep settling (one came to agree within the last settleMs), the
   * wait goes on, up to settleMaxMs: a target working off the backlog of an
   * overload finishes them one after another, at its own pace.
   */
  settleMs?: number;
  /** the longest the audit waits for unanswered checkouts that keep settling; default 180 s */
  settleMaxMs?: number;
  concurrency?: number;
  /** at most this many reads per second, over the whole audit (absent: as fast as `concurrency` reads go) */
  readsPerSecond?: number;
}

export interface AuditResult {
  anomalies: Record<AnomalyKind, number>;
  total: number;
  checked: { records: number; products: number; coPurchase: number };
  /** checkouts that got no clear answer (timeout, 5xx), resolved by reading the cart */
  ambiguous: number;
  /** a few concrete anomalies, for the report */
  examples: string[];
}

/** an anomaly found, before it is counted */
type Finding = [AnomalyKind, string];

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** Waits so that the calls of the returned function start at most `perSecond` times a second (no limit: undefined). */
export function pacer(perSecond: number | undefined): () => Promise<void> {
  if (!perSecond) return () => Promise.resolve();
  const interval = 1000 / perSecond;
  let nextAt = 0;
  return () => {
    const now = performance.now();
    nextAt = Math.max(nextAt + interval, now);
    const wait = nextAt - now;
    return wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve();
  };
}

async function read(baseUrl: string, path: string, pace?: () => Promise<void>): Promise<{ status: number; body: unknown }> {
  await pace?.();
  const res = await fetch(baseUrl + path, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

const num = (v: unknown, key: string) => (v && typeof v === "object" ? Number((v as Record<string, unknown>)[key]) : NaN);

/** A deterministic sample of at most n items, spread over the list. */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

export async function audit(input: AuditInput): Promise<AuditResult> {
  const { baseUrl, records, idOf, priceOf } = input;
  const concurrency = input.concurrency ?? 16;
  const pace = pacer(input.readsPerSecond);
  const getJson = (path: string) => read(baseUrl, path, pace);
  const anomalies = Object.fromEntries(ANOMALY_KINDS.map((k) => [k, 0])) as Record<AnomalyKind, number>;
  const examples: string[] = [];
  const flag = (kind: AnomalyKind, example: string) => {
    anomalies[kind]++;
    if (examples.length < 20) examples.push(`${kind}: ${example}`);
  };
  const totalOf = (r: CheckoutRecord) => r.items.reduce((s, [p, a]) => s + priceOf(idOf(p)) * a, 0);

  // 1. Which checkouts completed. A clear 200 or 409 is taken at its word (and
  //    checked below); no answer or a 5xx is resolved by reading the cart.
  const completed = new Set<CheckoutRecord>();
  const ambiguous = records.filter((r) => r.status !== 200 && r.status !== 409);
  const toRead = new Set([
    ...ambiguous,
    ...spread(
      records.filter((r) => r.status === 200 || r.status === 409),
      input.sampleRecords ?? 5000,
    ),
  ]);
  for (const r of records) if (r.status === 200) completed.add(r);
  const unreadable = (what: string, res: { status: number; body: unknown }): Finding => [
    "unreadable",
    `${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`,
  ];
  // A checkout that got no clear answer may still be running (a workflow that outlived the client's
  // timeout): its cart and its user are read again, with a growing pause, until they agree with each
  // other or settleMs has passed since the audit began or since the last of them settled, whichever is
  // later (at most settleMaxMs); only then is what they show counted. A clear answer's state is final.
  const settleMs = input.settleMs ?? 15_000;
  const settleStart = performance.now();
  const settleCap = settleStart + Math.max(settleMs, input.settleMaxMs ?? 180_000);
  let lastSettled = settleStart;
  const waitLeft = () => Math.min(settleCap, lastSettled + settleMs) - performance.now();
  const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
  // Reads again, with a growing pause, while `unsettled` holds and the wait allows; `reread` returns
  // the state it read, and a change to it counts as settling (the wait runs settleMs from there).
  const rereadWhile = async (unsettled: () => boolean, reread: () => Promise<string>, state: string) => {
    if (unsettled()) lastSettled = Math.max(lastSettled, performance.now());
    for (let pause = 250; unsettled() && waitLeft() > 0; pause = Math.min(pause * 2, 4000)) {
      await sleep(Math.min(pause, waitLeft()));
      const now = await reread();
      if (now !== state) lastSettled = performance.now();
      state = now;
    }
  };
  const checkRecord = async (r: CheckoutRecord): Promise<{ findings: Finding[]; completed: boolean; disagree?: boolean }> => {
    const findings: Finding[] = [];
    const cart = await getJson(`/shopping-carts/${r.cart}`);
    // a cart that cannot be read says nothing about the checkout: counted as unreadable, not as a missing order
    if (cart.status !== 200 && cart.status !== 404) return { findings: [unreadable(`cart ${r.cart}`, cart)], completed: false };
    const checkedOut = cart.status === 200 && (cart.body as { checkedOut?: unknown }).checkedOut === true;
    const expectedTotal = totalOf(r);
    const done = r.status === 200 || (r.status !== 409 && checkedOut);
    if (r.status === 200) {
      if (!checkedOut) findings.push(["ok-without-completed-order", `checkout of cart ${r.cart} answered 200 but the cart is not checked out`]);
      if (r.total !== undefined && r.total !== expectedTotal) findings.push(["wrong-total", `cart ${r.cart}: total ${r.total}, expected ${expectedTotal}`]);
      if (r.orderId) {
        const order = await getJson(`/orders/${r.orderId}`);
        if (order.status !== 200 && order.status !== 404) findings.push(unreadable(`order ${r.orderId}`, order));
        else if (order.status !== 200 || (order.body as { status?: unknown }).status !== "completed") {
          findings.push(["ok-without-completed-order", `order ${r.orderId} of a 200 checkout: ${order.status} ${JSON.stringify(order.body).slice(0, 120)}`]);
        }
      }
    } else if (r.status === 409) {
      if (checkedOut) findings.push(["rejected-with-side-effects", `checkout of cart ${r.cart} answered 409 but the cart is checked out`]);
    }
    const user = await getJson(`/users/${r.user}`);
    // 404: the user is gone (lost state, counted as drift below); anything else but 200: not readable
    if (user.status !== 200 && user.status !== 404) return { findings: [...findings, unreadable(`user ${r.user}`, user)], completed: done };
    const credits = num(user.body, "credits");
    const want = r.credits - (done ? expectedTotal : 0);
    if (credits < 0) findings.push(["negative-credits", `user ${r.user} has ${credits} credits`]);
    if (credits !== want) {
      findings.push([
        r.status === 409 ? "rejected-with-side-effects" : "credit-drift",
        `user ${r.user}: ${credits} credits, expected ${want} (checkout answered ${r.status})`,
      ]);
    }
    // the cart and the user both exist and do not agree: what a checkout still running looks like (a lost user or cart stays lost)
    return { findings, completed: done, disagree: user.status === 200 && credits !== want };
  };
  // the latest read of each record; what it shows is counted once nothing is waited for any more
  const outcomes = new Map<CheckoutRecord, { findings: Finding[]; completed: boolean }>();
  await pool([...toRead], concurrency, async (r) => {
    const answered = r.status === 200 || r.status === 409;
    let outcome = await checkRecord(r);
    let reread = false;
    for (let pause = 250; !answered && outcome.disagree && waitLeft() > 0; pause = Math.min(pause * 2, 4000)) {
      await sleep(Math.min(pause, waitLeft()));
      outcome = await checkRecord(r);
      reread = true;
    }
    if (reread && !outcome.disagree) lastSettled = performance.now();
    outcomes.set(r, outcome);
  });

  // 2. Stock: before minus what completed orders retracted, for every product in scope.
  const readStock = async () => {
    const isDone = (r: CheckoutRecord) => r.status === 200 || outcomes.get(r)?.completed === true;
    const taken = retracted(completedOrders(records, isDone, idOf));
    const findings: Finding[] = [];
    const after = new Map<string, number>();
    await pool([...input.stockBefore.keys()], concurrency, async (p) => {
      const product = await getJson(`/products/${p}`);
      if (product.status !== 200 && product.status !== 404) return void findings.push(unreadable(`product ${p}`, product));
      const stock = num(product.body, "stock");
      if (Number.isFinite(stock)) after.set(p, stock);
      const want = input.stockBefore.get(p)! + (input.stockAdded?.get(p) ?? 0) - (taken.get(p) ?? 0);
      if (stock < 0) findings.push(["negative-stock", `product ${p} has stock ${stock}`]);
      if (stock !== want) findings.push(["stock-drift", `product ${p}: stock ${stock}, expected ${want}`]);
    });
    const state = JSON.stringify([[...after].sort(), ambiguous.map(isDone)]);
    return { findings, stockAfter: after, state };
  };
  let stock = await readStock();
  // A saga past the client's timeout can hold stock while its cart and its user still agree (reserved,
  // not yet charged, or charged back and not yet released): while stock disagrees and unanswered
  // checkouts exist, the unanswered ones and the stock are read again, with a growing pause, until
  // settleMs after the last change (at most settleMaxMs since the audit began).
  const stockUnsettled = () => ambiguous.length > 0 && stock.findings.some(([kind]) => kind === "stock-drift");
  await rereadWhile(
    stockUnsettled,
    async () => {
      await pool(ambiguous, concurrency, async (r) => void outcomes.set(r, await checkRecord(r)));
      stock = await readStock();
      return stock.state;
    },
    stock.state,
  );
  for (const [r, outcome] of outcomes) {
    if (outcome.completed) completed.add(r);
    for (const [kind, example] of outcome.findings) flag(kind, example);
  }
  for (const [kind, example] of stock.findings) flag(kind, example);
  const stockAfter = stock.stockAfter;

  // 3. Every 409 must be warranted by the state just read.
  for (const u of unwarrantedRejections({ records, stockAfter, stockAdded: input.stockAdded, idOf, priceOf })) flag("unwarranted-rejection", u.why);

  // 4. Co-purchase counts, once quiet: compare top-5 answers with the expected ones. A checkout
  //    of an earlier phase that got no clear answer counts by its cart, as the phase's own do.
  const all = input.allRecords ?? records;
  const phase = new Set(records);
  const earlierCompleted = new Set<CheckoutRecord>();
  await pool(
    all.filter((r) => !phase.has(r) && r.status !== 200 && r.status !== 409),
    concurrency,
    async (r) => {
      const cart = await getJson(`/shopping-carts/${r.cart}`);
      if (cart.status !== 200 && cart.status !== 404) return flag(...unreadable(`cart ${r.cart}`, cart));
      if (cart.status === 200 && (cart.body as { checkedOut?: unknown }).checkedOut === true) earlierCompleted.add(r);
    },
  );
  const allCompleted = (r: CheckoutRecord) => (phase.has(r) ? completed.has(r) : r.status === 200 || earlierCompleted.has(r));
  const counts = coPurchaseCounts(completedOrders(all, allCompleted, idOf));
  const sample = spread([...counts.keys()].sort(), input.coPurchaseSample ?? 100);
  await new Promise((r) => setTimeout(r, input.quietMs ?? 1000));
  const readCoPurchase = async (products: string[]): Promise<Map<string, Finding>> => {
    const wrong = new Map<string, Finding>();
    await pool(products, concurrency, async (p) => {
      const want = expectedTop(counts.get(p), 5).sort();
      const res = await getJson(`/products/${p}/freq-items?top=5&depth=1`);
      if (res.status !== 200 && res.status !== 404) return flag(...unreadable(`freq-items of ${p}`, res));
      const got = res.body;
      const gotIds = Array.isArray(got) ? (got as string[]).slice().sort() : got;
      if (JSON.stringify(gotIds) !== JSON.stringify(want)) {
        wrong.set(p, ["co-purchase-wrong", `freq-items of ${p}: ${JSON.stringify(gotIds).slice(0, 120)}, expected ${JSON.stringify(want).slice(0, 120)}`]);
      }
    });
    return wrong;
  };
  // A target may count co-purchases after it answers the checkout (a workflow or message of its own):
  // on a loaded machine that can outlast quietMs. The wrong ones are read again, as unsettled stock is,
  // until they agree or settleMs passes with no answer changing (at most settleMaxMs). The answers
  // are compared in product order: the order they arrived in is not a change.
  const answers = (w: Map<string, Finding>) => JSON.stringify([...w].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  let wrong = await readCoPurchase(sample);
  await rereadWhile(
    () => wrong.size > 0,
    async () => {
      wrong = await readCoPurchase([...wrong.keys()]);
      return answers(wrong);
    },
    answers(wrong),
  );
  for (const finding of wrong.values()) flag(...finding);

  const total = Object.values(anomalies).reduce((a, b) => a + b, 0);
  return {
    anomalies,
    total,
    checked: { records: toRead.size, products: input.stockBefore.size, coPurchase: sample.length },
    ambiguous: ambiguous.length,
    examples,
  };
}

/**
 * Reads the stock of products before a phase, for the audit. Not paced like the audit: it runs right
 * after the seed wrote the same products at least as fast.
 */
export async function snapshotStock(baseUrl: string, productIds: string[], concurrency = 16): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await pool(productIds, concurrency, async (p) => {
    const res = await read(baseUrl, `/products/${p}`);
    if (res.status === 404) out.set(p, 0); // created later by the workload: it starts from nothing
    const stock = num(res.body, "stock");
    if (Number.isFinite(stock)) out.set(p, stock);
  });
  return out;
}
