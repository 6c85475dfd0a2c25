/**
 * The target's name in the catalogue. The target is built and started by
 * provider-local (the same build and start a run uses) and driven over HTTP
 * only, with the helpers every target folder shares (@sfbench/target-suite).
 */
export const TARGET = "temporal";
