#!/bin/sh
# Builds the target into $SFBENCH_BUILD_DIR (sfbench runs this through
# target.json's build.command, cached by the content of its inputs):
#   temporal-target  the launcher, the worker and the HTTP gateway (this module)
#   temporal         the Temporal CLI, whose `server start-dev` is the server
#                    (Temporal Server 1.29.1 in one process, SQLite persistence)
set -eu
: "${SFBENCH_BUILD_DIR:?set by sfbench: where the binaries go}"

go build -buildvcs=false -o "$SFBENCH_BUILD_DIR/temporal-target" ./cmd/temporal-target

# The CLI is a module of its own, built at a fixed version outside this
# module's go.mod (go install pkg@version), so its dependencies (the whole
# Temporal server) never mix with the SDK's.
GOBIN="$SFBENCH_BUILD_DIR" go install -trimpath github.com/temporalio/cli/cmd/temporal@v1.5.1
