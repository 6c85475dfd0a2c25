/**
 * Seed (SPEC 4): products `${PRODUCT_PREFIX}-0` .. `-${PRODUCTS - 1}` with the
 * seeded price productPrice(SEED, i) and stock topped up to STOCK. Runs as fast
 * as VUS connections allow; any failed request aborts the run (exit code 108),
 * and a run that seeded fewer than PRODUCTS products fails its threshold (99).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEED=1 k6/seed.ts
 */
import exec from "k6/execution";
import { Counter } from "k6/metrics";
import type { Options } from "k6/options";
import { productId, productPrice } from "../src/distributions.ts";
import { seedEnv } from "../src/workload-env.ts";
import { seedProduct } from "./lib/catalog.ts";
import { Api } from "./lib/http.ts";
import { commonOptions } from "./lib/options.ts";

const config = seedEnv(__ENV);
const api = new Api(config.baseUrl);
const seeded = new Counter("seeded_products");

export const options: Options = {
  ...commonOptions,
  scenarios: {
    seed: {
      executor: "shared-iterations",
      vus: Math.min(config.vus, config.products),
      iterations: config.products,
      maxDuration: `${config.maxDuration}s`,
    },
  },
  thresholds: { seeded_products: [`count==${config.products}`] },
};

export default function (): void {
  const index = exec.scenario.iterationInTest;
  const id = productId(config.productPrefix, index);
  if (!seedProduct(api, id, productPrice(config.seed, index), config.stock)) {
    exec.test.abort(`seed: product ${id} could not be written (see the failed check); the catalog is incomplete`);
  }
  seeded.add(1);
}
