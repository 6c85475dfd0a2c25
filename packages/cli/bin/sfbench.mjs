#!/usr/bin/env node
// Thin entry point: load TypeScript through tsx, then run the CLI.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
