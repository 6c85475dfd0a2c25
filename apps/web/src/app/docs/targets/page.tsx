import type { Metadata } from "next";
import { DocPage } from "../../../components/doc-page.tsx";

export const metadata: Metadata = { title: "Adding a target" };

export default function TargetsPage() {
  return <DocPage name="targets" href="/docs/targets" />;
}
