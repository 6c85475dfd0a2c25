import type { Metadata } from "next";
import { DocPage } from "../../../components/doc-page.tsx";

export const metadata: Metadata = { title: "Conformance checks" };

export default function ConformancePage() {
  return <DocPage name="conformance" href="/docs/conformance" />;
}
