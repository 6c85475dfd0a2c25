import { describe, expect, it } from "vitest";
import { inSystemNamespace, namespaceProblem, outsideSystemNamespace, reservedReference } from "../src/image-archive.ts";

describe("an image archive's names", () => {
  it.each([
    ["localhost/shop:0.1.0", true],
    ["shop:0.1.0", true],
    ["shop", true],
    ["localhost/shop/gateway:2", true],
    ["docker.io/shop/gateway:2", true],
    ["shop@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true],
    // another system's name, one that merely starts like it, or another registry's
    ["localhost/shopping:0.1.0", false],
    ["localhost/other/shop:0.1.0", false],
    ["ghcr.io/shop/app:1", false],
    ["localhost:5000/shop:1", false],
    ["localhost/sfbench/shop:1", false],
  ])("%s is in the system shop's namespace: %s", (reference, inside) => {
    expect(inSystemNamespace(reference, "shop")).toBe(inside);
  });

  it("finds the first name outside, and says what a name may be", () => {
    expect(outsideSystemNamespace(["localhost/shop:1", "localhost/node-postgres:1"], "shop")).toBe("localhost/node-postgres:1");
    expect(outsideSystemNamespace(["localhost/shop:1", "shop/gw:1"], "shop")).toBeUndefined();
    expect(namespaceProblem("localhost/node-postgres:1", "shop")).toMatch(
      /^it names localhost\/node-postgres:1, outside the namespace of the system "shop": an image archive of "shop" may only name localhost\/shop:<tag> or localhost\/shop\/<image>:<tag>, so that no archive moves a name another system's runs load; tag the image so \(\w+ tag\) and save it again$/,
    );
  });

  it("keeps sfbench's own namespaces whatever a system is called", () => {
    expect(reservedReference(["localhost/sfbench-base/node:20-slim"])).toBe("localhost/sfbench-base/node:20-slim");
    expect(reservedReference(["sfbench/node-postgres:0.2.0", "shop:1"])).toBe("sfbench/node-postgres:0.2.0");
    expect(reservedReference(["shop:1"])).toBeUndefined();
  });
});
