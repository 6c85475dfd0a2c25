/** The OpenAPI document of the application API (SPEC 2): its operations, and the document itself. */
import type { Metadata } from "next";
import { DocsNav } from "../../../components/docs-nav.tsx";
import { openApiOperations, openApiText } from "../../../server/docs.ts";

export const metadata: Metadata = { title: "OpenAPI" };

export default function ApiPage() {
  const { title, version, operations } = openApiOperations();
  return (
    <>
      <DocsNav current="/docs/api" />
      <h1>
        {title} <span className="muted">{version}</span>
      </h1>
      <p>
        Every target serves these routes.{" "}
        <a href="/docs/openapi.json" download>
          openapi.json
        </a>{" "}
        (OpenAPI 3.1, generated from the zod schemas in <code>packages/core/src/api.ts</code>).
      </p>
      <table className="table" data-testid="openapi-operations">
        <thead>
          <tr>
            <th>Method</th>
            <th>Path</th>
            <th>What</th>
            <th>Responses</th>
          </tr>
        </thead>
        <tbody>
          {operations.map((op) => (
            <tr key={`${op.method} ${op.path}`}>
              <td>
                <code>{op.method}</code>
              </td>
              <td>
                <code>{op.path}</code>
              </td>
              <td>{op.summary}</td>
              <td>{op.responses.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>The document</summary>
        <pre>{openApiText()}</pre>
      </details>
    </>
  );
}
