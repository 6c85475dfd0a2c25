/**
 * Populate (SPEC 4 analytics, first phase): POPULATE checkouts of k ~
 * U[CART_MIN, CART_MAX] uniformly chosen distinct products, as fast as VUS
 * connections allow (or at most RATE checkouts per second: each VU's
 * iteration then takes at least VUS / RATE seconds, for a target that many
 * new entities at once would overwhelm; populate is not measured), by USERS
 * users created in setup() with CREDITS each.
 * Builds the co-purchase graph that k6/analytics.ts queries, and logs an
 * audit record per checkout: the analytics cell's audit compares the graph
 * its queries read with the orders that built it. The users are shared, so
 * these records are never used to check credits. DISTRIBUTION is ignored:
 * the population is always uniform.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEED=1 k6/populate.ts
 */
import { sleep } from "k6";
import exec from "k6/execution";
import type { Options } from "k6/options";
import { productChooser, productId, productPrice } from "../src/distributions.ts";
import { populateEnv } from "../src/workload-env.ts";
import { auditedCheckout } from "./lib/audit.ts";
import { Api } from "./lib/http.ts";
import { iterationRng } from "./lib/iteration.ts";
import { commonOptions } from "./lib/options.ts";
import { drawItems, totalOf } from "./lib/shop.ts";

const config = populateEnv(__ENV);
const api = new Api(config.baseUrl);
const vus = Math.min(config.vus, config.populate);
const choose = productChooser({ n: config.products, distribution: "uniform", seed: config.seed });
const product = (index: number) => ({ id: productId(config.productPrefix, index), price: productPrice(config.seed, index) });

export const options: Options = {
  ...commonOptions,
  scenarios: {
    populate: {
      executor: "shared-iterations",
      vus,
      iterations: config.populate,
      maxDuration: `${config.maxDuration}s`,
    },
  },
  // A few failures leave a slightly smaller graph; many mean the target is broken.
  thresholds: { checks: ["rate>0.99"] },
};

interface SetupData {
  users: string[];
}

export function setup(): SetupData {
  const users: string[] = [];
  for (let i = 0; i < config.users; i++) {
    const user = api.createUser(config.credits);
    if (user === undefined) exec.test.abort("populate: could not create the users that check out");
    else users.push(user);
  }
  return { users };
}

export default function (data: SetupData): void {
  const started = Date.now();
  checkOut(data);
  const left = config.rate === undefined ? 0 : vus / config.rate - (Date.now() - started) / 1000;
  if (left > 0) sleep(left);
}

function checkOut(data: SetupData): void {
  const iteration = exec.scenario.iterationInTest;
  const rng = iterationRng(config.seed);
  const items = drawItems(rng, config, choose, config.products, product);
  const cart = api.createCart();
  if (cart === undefined) return;
  for (const item of items) if (!api.addToCart(cart, item.id, item.amount)) return;
  const user = data.users[iteration % data.users.length] as string;
  auditedCheckout(
    {
      scenario: exec.scenario.name,
      iteration,
      user,
      credits: config.credits,
      cart,
      items: items.map((item): [string, number] => [item.id, item.amount]),
      expectedTotal: totalOf(items),
    },
    () => api.checkout(cart, user, items.length, false),
  );
}
