/**
 * The repository's docs (docs/*.md, docs/openapi.json), read once per process.
 * Rendered with marked: these files are the project's own, reviewed with the
 * code, never user input (user text is always rendered as React text).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { marked } from "marked";

export const DOCS = {
  spec: { file: "spec.md", title: "Specification" },
  targets: { file: "targets.md", title: "Adding a target" },
  conformance: { file: "conformance.md", title: "Conformance checks" },
  cluster: { file: "cluster.md", title: "Running on a cluster" },
} as const;
export type DocName = keyof typeof DOCS;

function docsDir(): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "docs", "spec.md"))) return path.join(dir, "docs");
    if (path.dirname(dir) === dir) throw new Error(`docs/spec.md not found above ${process.cwd()}`);
  }
}

const cache = new Map<string, string>();

function read(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(path.join(docsDir(), file), "utf8");
    cache.set(file, text);
  }
  return text;
}

export function docHtml(name: DocName): string {
  return marked.parse(read(DOCS[name].file), { async: false, gfm: true });
}

export interface OpenApiOperation {
  method: string;
  path: string;
  summary: string;
  responses: string[];
}

export function openApiText(): string {
  return read("openapi.json");
}

export function openApiOperations(): { title: string; version: string; operations: OpenApiOperation[] } {
  const doc = JSON.parse(openApiText()) as {
    info: { title: string; version: string };
    paths: Record<string, Record<string, { summary?: string; responses?: Record<string, unknown> }>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: p,
      summary: op.summary ?? "",
      responses: Object.keys(op.responses ?? {}),
    })),
  );
  return { title: doc.info.title, version: doc.info.version, operations };
}
