/**
 * Checkout (SPEC 4): per iteration create a user, add CREDITS, create a cart,
 * add k ~ U[CART_MIN, CART_MAX] distinct products (DISTRIBUTION) with amount
 * ~ U[AMOUNT_MIN, AMOUNT_MAX], check out, and log its audit records.
 * Open model: one constant-arrival-rate scenario per STEPS entry.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEED=1 -e STEPS='[{"rate":50,"duration":30}]' k6/checkout.ts
 */
import exec from "k6/execution";
import { productChooser, productId, productPrice } from "../src/distributions.ts";
import { checkoutEnv } from "../src/workload-env.ts";
import { auditedCheckout } from "./lib/audit.ts";
import { Api } from "./lib/http.ts";
import { iterationRng } from "./lib/iteration.ts";
import { arrivalOptions } from "./lib/options.ts";
import { drawItems, prepareCheckout, totalOf } from "./lib/shop.ts";

const config = checkoutEnv(__ENV);
const api = new Api(config.baseUrl, config.traced);
const choose = productChooser({ n: config.products, distribution: config.distribution, s: config.zipfS, seed: config.seed });
const product = (index: number) => ({ id: productId(config.productPrefix, index), price: productPrice(config.seed, index) });

export const options = arrivalOptions(config);

export default function (): void {
  const rng = iterationRng(config.seed);
  const items = drawItems(rng, config, choose, config.products, product);
  const ids = prepareCheckout(api, config.credits, items);
  if (ids === undefined) return;
  auditedCheckout(
    {
      scenario: exec.scenario.name,
      iteration: exec.scenario.iterationInTest,
      user: ids.user,
      credits: config.credits,
      cart: ids.cart,
      items: items.map((item): [string, number] => [item.id, item.amount]),
      expectedTotal: totalOf(items),
    },
    () => api.checkout(ids.cart, ids.user, items.length, false),
  );
}
