/** One of the repository's markdown docs, rendered (trusted project content; see server/docs.ts). */
import { docHtml, type DocName } from "../server/docs.ts";
import { DocsNav } from "./docs-nav.tsx";

export function DocPage({ name, href }: { name: DocName; href: string }) {
  return (
    <>
      <DocsNav current={href} />
      <article className="docs" data-testid={`doc-${name}`} dangerouslySetInnerHTML={{ __html: docHtml(name) }} />
    </>
  );
}
