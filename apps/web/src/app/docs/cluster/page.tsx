import type { Metadata } from "next";
import { DocPage } from "../../../components/doc-page.tsx";

export const metadata: Metadata = { title: "Running on a cluster" };

export default function ClusterPage() {
  return <DocPage name="cluster" href="/docs/cluster" />;
}
