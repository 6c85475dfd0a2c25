import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { conformanceMarkdown } from "./docs.ts";

const file = fileURLToPath(new URL("../../../docs/conformance.md", import.meta.url));
writeFileSync(file, conformanceMarkdown());
console.log(`wrote ${file}`);
