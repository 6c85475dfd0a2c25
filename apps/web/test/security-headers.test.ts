/** The portal's Content-Security-Policy (every response, next.config.ts's headers): its own origin only, nothing framed, no plugins. */
import { describe, expect, it } from "vitest";
import config, { contentSecurityPolicy } from "../next.config.ts";

const directives = (policy: string): Record<string, string[]> => Object.fromEntries(policy.split("; ").map((d) => [d.split(" ")[0]!, d.split(" ").slice(1)]));

describe("the security headers", () => {
  it("allow scripts, styles, requests and forms from the portal's own origin only, and no framing, plugins or other base", () => {
    const csp = directives(contentSecurityPolicy(false));
    expect(csp["default-src"]).toEqual(["'self'"]);
    expect(csp["script-src"]).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(csp["form-action"]).toEqual(["'self'"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp["object-src"]).toEqual(["'none'"]);
    expect(csp["base-uri"]).toEqual(["'self'"]);
    for (const sources of Object.values(csp)) expect(sources.join(" ")).not.toMatch(/\*|https?:/);
  });

  it("let only next dev evaluate code and open its reload socket", () => {
    expect(contentSecurityPolicy(true)).toContain("script-src 'self' 'unsafe-inline' 'unsafe-eval'");
    expect(contentSecurityPolicy(false)).not.toContain("unsafe-eval");
  });

  it("are sent with every page the portal serves", async () => {
    const [rule] = await config.headers!();
    expect(rule!.source).toBe("/:path*");
    expect(rule!.headers.map((h) => h.key)).toEqual(["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"]);
  });
});
