/** After signing in the portal goes to `next` only when it stays on the site: every way out of it is "/". */
import { describe, expect, it } from "vitest";
import { localPath } from "../src/shared/safe-url.ts";

describe("the page after signing in", () => {
  it("keeps a path on this site with its query and fragment", () => {
    expect(localPath("/submit")).toBe("/submit");
    expect(localPath("/systems/node-postgres?tab=runs#latest")).toBe("/systems/node-postgres?tab=runs#latest");
    expect(localPath("/systems/a%2Fb")).toBe("/systems/a%2Fb");
  });

  it.each([
    ["a tab the URL parser drops (?next=/%09/evil.example)", "/\t/evil.example"],
    ["a newline the URL parser drops", "/\n/evil.example"],
    ["a protocol-relative URL", "//evil.example/x"],
    ["a backslash read as a slash", "/\\evil.example"],
    ["a backslash after a tab", "/\t\\evil.example"],
    ["an absolute URL", "https://evil.example/"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["a relative path", "submit"],
    ["nothing", ""],
  ])("goes home for %s", (_what, next) => {
    expect(localPath(next)).toBe("/");
  });

  it("goes home without a next", () => {
    expect(localPath(undefined)).toBe("/");
    expect(localPath(null)).toBe("/");
  });
});
