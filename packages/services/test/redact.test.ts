import { describe, expect, it } from "vitest";
import { redactUrl } from "../src/types.ts";

describe("a server's URL as it is shown", () => {
  it.each([
    ["redis://:s3cr%2Ft@127.0.0.1:63799", "redis://:***@127.0.0.1:63799"],
    ["postgres://postgres:pw@127.0.0.1:54329/sfbench", "postgres://postgres:***@127.0.0.1:54329/sfbench"],
    // nothing to hide, or not a URL: as it was
    ["postgres://postgres@127.0.0.1:54329/postgres", "postgres://postgres@127.0.0.1:54329/postgres"],
    ["127.0.0.1:9092", "127.0.0.1:9092"],
    ["", ""],
  ])("%s reads %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});
