import type { Metadata } from "next";
import { DocPage } from "../../components/doc-page.tsx";

export const metadata: Metadata = { title: "Specification" };

export default function SpecPage() {
  return <DocPage name="spec" href="/docs" />;
}
