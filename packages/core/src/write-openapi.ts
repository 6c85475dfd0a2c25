import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openApiText } from "./openapi.ts";

const target = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
writeFileSync(target, openApiText());
console.log(`wrote ${target}`);
