import { describe, expect, it } from "vitest";
import { unwarrantedRejections } from "../src/audit/warrant.ts";
import type { CheckoutRecord } from "../src/audit/records.ts";

const rec = (over: Partial<CheckoutRecord>): CheckoutRecord => ({
  sfbench: "audit",
  kind: "checkout",
  user: "u",
  credits: 1000,
  cart: "c",
  items: [["p1", 2]],
  status: 409,
  ...over,
});
const judge = (records: CheckoutRecord[], stock: Record<string, number>, added: Record<string, number> = {}) =>
  unwarrantedRejections({
    records,
    stockAfter: new Map(Object.entries(stock)),
    stockAdded: new Map(Object.entries(added)),
    idOf: String,
    priceOf: () => 10,
  }).map((u) => u.record.cart);

describe("whether a 409 checkout was warranted", () => {
  it("finds insufficient-stock unwarranted when the product had stock for it throughout the load", () => {
    expect(judge([rec({ cart: "a", error: "insufficient-stock" })], { p1: 1_000_000 })).toEqual(["a"]);
  });

  it("accepts insufficient-stock when the product ran out, or when other rejected checkouts could have been holding its stock", () => {
    expect(judge([rec({ cart: "a", error: "insufficient-stock" })], { p1: 1 })).toEqual([]);
    // 3 left after the load, but two other rejected carts of 2 each could have held 4 at the moment
    const held = [
      rec({ cart: "a", error: "insufficient-stock" }),
      rec({ cart: "b", error: "insufficient-credits", credits: 5 }),
      rec({ cart: "c2", status: 0 }),
    ];
    expect(judge(held, { p1: 3 })).toEqual([]);
    // stock added during the load may not have been there yet
    expect(judge([rec({ cart: "a", error: "insufficient-stock" })], { p1: 5 }, { p1: 4 })).toEqual([]);
  });

  it("accepts insufficient-stock for a product the audit did not read (the claim cannot be judged)", () => {
    expect(judge([rec({ cart: "a", error: "insufficient-stock" })], {})).toEqual([]);
  });

  it("checks insufficient-credits against the credits the workload gave the user", () => {
    expect(judge([rec({ cart: "a", error: "insufficient-credits", credits: 20 })], { p1: 0 })).toEqual(["a"]);
    expect(judge([rec({ cart: "b", error: "insufficient-credits", credits: 19 })], { p1: 0 })).toEqual([]);
  });

  it("never accepts empty-cart for a filled cart, cart-checked-out at a cart's only checkout, or a code SPEC 2.1 does not give", () => {
    const records = [
      rec({ cart: "e", error: "empty-cart" }),
      rec({ cart: "k", error: "cart-checked-out" }),
      rec({ cart: "x", error: "busy" }),
      rec({ cart: "n" }),
    ];
    expect(judge(records, { p1: 0 })).toEqual(["e", "k", "x", "n"]);
  });

  it("ignores answers that are not 409", () => {
    expect(judge([rec({ cart: "ok", status: 200 }), rec({ cart: "t", status: 0 })], { p1: 1_000_000 })).toEqual([]);
  });
});
