/** The published docs (/docs, /docs/targets, /docs/conformance): rendered from docs/*.md, they read as documentation for their readers. */
import { describe, expect, it } from "vitest";
import { DOCS, docHtml, type DocName } from "../src/server/docs.ts";

const text = (name: DocName) =>
  docHtml(name)
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

describe("the published docs", () => {
  it("publish the spec as a spec: its contract, without the instruction to the project that came with it", () => {
    const spec = text("spec");
    expect(spec).toContain('This is the contract that every benchmarked system ("target") implements');
    expect(spec).not.toMatch(/must restate it/i);
    expect(spec).not.toMatch(/project's own docs/i);
    expect(spec).not.toMatch(/fix one of them on purpose/i);
  });

  it("render every page without raw markdown headings left over", () => {
    for (const name of Object.keys(DOCS) as DocName[]) {
      const html = docHtml(name);
      expect(html, name).toMatch(/<h1[^>]*>/);
      expect(html, name).not.toMatch(/(^|\n)#{1,3} /);
    }
  });
});
