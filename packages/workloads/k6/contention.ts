/**
 * Contention (SPEC 4, the rollback path): carts of k distinct products from
 * a hot set of HOT products, so concurrent checkouts retract and compensate
 * the same stock. Each iteration plans its outcome:
 *   - with probability FAIL_STOCK, one unit of a sold-out product joins the
 *     cart: 409 insufficient-stock, the other products must be put back;
 *   - else with probability FAIL_CREDITS, the user gets total - 1 credits:
 *     409 insufficient-credits, all stock must be put back;
 *   - else the user gets exactly the total: 200.
 * Expected 409 share: 1 - (1 - FAIL_STOCK)(1 - FAIL_CREDITS).
 * setup() seeds the hot products (stock topped up to HOT_STOCK) and the
 * sold-out one (stock 0).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEED=1 -e STEPS='[{"rate":50,"duration":30}]' k6/contention.ts
 */
import { check } from "k6";
import exec from "k6/execution";
import { hotProductId, hotProductPrice, productChooser, soldOutProductId, soldOutProductPrice } from "../src/distributions.ts";
import { contentionEnv } from "../src/workload-env.ts";
import { auditedCheckout, type CheckoutAudit } from "./lib/audit.ts";
import { seedProduct } from "./lib/catalog.ts";
import { Api } from "./lib/http.ts";
import { iterationRng } from "./lib/iteration.ts";
import { arrivalOptions } from "./lib/options.ts";
import { drawItems, prepareCheckout, totalOf, type PlannedItem } from "./lib/shop.ts";

const config = contentionEnv(__ENV);
const api = new Api(config.baseUrl, config.traced);
const choose = productChooser({ n: config.hot, distribution: config.distribution, s: config.zipfS, seed: config.seed });
const hotProduct = (i: number) => ({ id: hotProductId(config.productPrefix, i), price: hotProductPrice(config.seed, i) });
const soldOut: PlannedItem = { id: soldOutProductId(config.productPrefix), price: soldOutProductPrice(config.seed), amount: 1 };

export const options = arrivalOptions(config);

export function setup(): void {
  for (let i = 0; i < config.hot; i++) {
    const { id, price } = hotProduct(i);
    if (!seedProduct(api, id, price, config.hotStock)) exec.test.abort(`contention: could not seed hot product ${id}`);
  }
  if (!seedProduct(api, soldOut.id, soldOut.price, 0)) exec.test.abort(`contention: could not seed ${soldOut.id}`);
  const left = api.readProduct(soldOut.id);
  if (left?.stock !== 0) exec.test.abort(`contention: ${soldOut.id} must have stock 0, has ${left?.stock}: use a fresh PRODUCT_PREFIX`);
}

type Planned = NonNullable<CheckoutAudit["planned"]>;

export default function (): void {
  const rng = iterationRng(config.seed);
  const items = drawItems(rng, config, choose, config.hot, hotProduct);
  let planned: Planned = "ok";
  if (rng.chance(config.failStock)) {
    planned = "insufficient-stock";
    items.push(soldOut);
  } else if (rng.chance(config.failCredits)) {
    planned = "insufficient-credits";
  }
  const expectedTotal = totalOf(items);
  const credits = planned === "insufficient-credits" ? expectedTotal - 1 : expectedTotal;

  const ids = prepareCheckout(api, credits, items);
  if (ids === undefined) return;
  const answer = auditedCheckout(
    {
      scenario: exec.scenario.name,
      iteration: exec.scenario.iterationInTest,
      user: ids.user,
      credits,
      cart: ids.cart,
      items: items.map((item): [string, number] => [item.id, item.amount]),
      expectedTotal,
      planned,
    },
    () => api.checkout(ids.cart, ids.user, items.length, true),
  );
  check(
    answer,
    {
      "checkout answers as planned": (a) => (planned === "ok" ? a.status === 200 : a.status === 409 && a.error === planned),
    },
    { op: "checkout" },
  );
}
