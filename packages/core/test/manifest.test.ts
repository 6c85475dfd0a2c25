import { describe, expect, it } from "vitest";
import { manifestDigest, manifestImplementation, parseManifest, parseManifestText } from "../src/manifest.ts";

const valid = {
  name: "demo",
  system: "Demo",
  version: "1.0.0",
  language: "typescript",
  guarantees: { consistency: "serializable", messaging: "synchronous", durability: "durable" },
  port: 8080,
  local: { command: ["node", "server.js"] },
  services: ["postgres"],
  loc: { app: ["src/**/*.ts"] },
};

const errorsOf = (m: unknown) => {
  const r = parseManifest(m);
  if (r.ok) throw new Error("expected an invalid manifest");
  return r.errors;
};

describe("target.json validation", () => {
  it("accepts a valid manifest and fills defaults", () => {
    const r = parseManifest(valid);
    expect(r.ok && r.manifest).toMatchObject({ health: "/health", tracing: false, loc: { gateway: [] }, local: { env: {}, startupTimeoutSeconds: 60 } });
  });

  it("names the field and the allowed values of a bad enum", () => {
    const [line] = errorsOf({ ...valid, services: ["postgres", "mysql"] });
    expect(line).toMatch(/^services\.1: /);
    expect(line).toContain("postgres, redis, kafka");
  });

  it("names a bad nested field with its allowed values", () => {
    const [line] = errorsOf({ ...valid, guarantees: { ...valid.guarantees, messaging: "maybe" } });
    expect(line).toMatch(/^guarantees\.messaging: /);
    expect(line).toContain("exactly-once");
  });

  it("suggests the closest field for a misspelt one", () => {
    const [line] = errorsOf({ ...valid, servics: ["redis"] });
    expect(line).toContain('servics: unknown field (did you mean "services"?)');
  });

  it("names a missing required field", () => {
    const { name: _n, ...rest } = valid;
    expect(errorsOf(rest)[0]).toMatch(/^name: .*(allowed: a short slug)/);
  });

  it("rejects a port out of range, an invalid name and globs leaving the folder", () => {
    const errors = errorsOf({ ...valid, port: 80, name: "Bad Name", loc: { app: ["../secret/**"] } });
    expect(errors.some((e) => e.startsWith("port: "))).toBe(true);
    expect(errors.some((e) => e.startsWith("name: must be 1-63 chars"))).toBe(true);
    expect(errors.some((e) => e.startsWith("loc.app.0: must be a relative glob"))).toBe(true);
  });

  it("reports invalid JSON as one line instead of throwing", () => {
    const r = parseManifestText("{ nope");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]).toMatch(/^\(root\): not valid JSON/);
  });

  it("takes micro as an optional boolean without a default, so manifests without it keep their digest", () => {
    const without = parseManifest(valid);
    expect(without.ok && "micro" in without.manifest).toBe(false);
    const withMicro = parseManifest({ ...valid, micro: true });
    expect(withMicro.ok && withMicro.manifest.micro).toBe(true);
    expect(withMicro.ok && without.ok && manifestDigest(withMicro.manifest)).not.toBe(without.ok && manifestDigest(without.manifest));
    const [line] = errorsOf({ ...valid, micro: "yes" });
    expect(line).toMatch(/^micro: .*boolean.*\(allowed: true if the target implements the microbenchmark routes of SPEC 8/);
  });

  it("takes implementation as idiomatic or tuned without a default: absent reads as idiomatic and keeps the digest", () => {
    const without = parseManifest(valid);
    expect(without.ok && "implementation" in without.manifest).toBe(false);
    expect(without.ok && manifestImplementation(without.manifest)).toBe("idiomatic");
    const tuned = parseManifest({ ...valid, implementation: "tuned" });
    expect(tuned.ok && manifestImplementation(tuned.manifest)).toBe("tuned");
    expect(tuned.ok && without.ok && manifestDigest(tuned.manifest)).not.toBe(without.ok && manifestDigest(without.manifest));
    expect(errorsOf({ ...valid, implementation: "fast" })[0]).toMatch(/^implementation: .*\(allowed: idiomatic\|tuned: "idiomatic" \(or absent\)/);
  });

  it("takes audit.readsPerSecond as an optional pace of 10-100000, without a default", () => {
    const without = parseManifest(valid);
    expect(without.ok && "audit" in without.manifest).toBe(false);
    const paced = parseManifest({ ...valid, audit: { readsPerSecond: 200 } });
    expect(paced.ok && paced.manifest.audit).toEqual({ readsPerSecond: 200 });
    expect(errorsOf({ ...valid, audit: { readsPerSecond: 5 } })[0]).toMatch(/^audit\.readsPerSecond: .*10.*\(allowed: \{"readsPerSecond": 200\}/);
    expect(errorsOf({ ...valid, audit: { rate: 200 } })[0]).toMatch(/^audit\.rate: unknown field/);
  });

  it("takes populate.checkoutsPerSecond as an optional pace of 10-100000, without a default", () => {
    const without = parseManifest(valid);
    expect(without.ok && "populate" in without.manifest).toBe(false);
    const paced = parseManifest({ ...valid, populate: { checkoutsPerSecond: 25 } });
    expect(paced.ok && paced.manifest.populate).toEqual({ checkoutsPerSecond: 25 });
    // slower would not finish a profile's 20,000 checkouts within the populate script's hour
    expect(errorsOf({ ...valid, populate: { checkoutsPerSecond: 5 } })[0]).toMatch(/^populate\.checkoutsPerSecond: .*\(allowed: \{"checkoutsPerSecond": 25\}/);
    expect(errorsOf({ ...valid, populate: { checkoutsPerSecond: 2.5 } })[0]).toMatch(/^populate\.checkoutsPerSecond: /);
    expect(errorsOf({ ...valid, populate: { rate: 25 } })[0]).toMatch(/^populate\.rate: unknown field/);
  });

  it("digests equal manifests equally whatever the key order", () => {
    const a = parseManifest(valid);
    const b = parseManifest(Object.fromEntries(Object.entries(valid).reverse()));
    expect(a.ok && b.ok && manifestDigest(a.manifest)).toBe(b.ok && manifestDigest(b.manifest));
    expect(a.ok && manifestDigest(a.manifest)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
