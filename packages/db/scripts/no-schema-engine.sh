#!/bin/sh
# Stands in for Prisma's native schema engine, which sfbench does not use (it is
# downloaded from binaries.prisma.sh, which CI cannot reach). `prisma generate`
# only needs the variable PRISMA_SCHEMA_ENGINE_BINARY to point at a file.
# Migrations: `npm run db:migration -w @sfbench/db -- <name>` (wasm engine) and
# @sfbench/db migrate().
echo "sfbench: Prisma's native schema engine is not installed; write migrations with 'npm run db:migration -w @sfbench/db -- <name>'" >&2
exit 1
