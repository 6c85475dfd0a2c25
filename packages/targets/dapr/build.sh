#!/bin/sh
# Builds the target into $SFBENCH_BUILD_DIR (sfbench runs this through
# target.json's build.command, cached by the content of its inputs):
#   dapr-target  the launcher, gateway and actor app (this module)
#   daprd        the Dapr sidecar, placement  the Dapr placement service
#                (runtime/: a wrapper module around github.com/dapr/dapr)
set -eu
: "${SFBENCH_BUILD_DIR:?set by sfbench: where the binaries go}"
here=$(cd "$(dirname "$0")" && pwd)

go build -buildvcs=false -o "$SFBENCH_BUILD_DIR/dapr-target" ./cmd/dapr-target

# daprd's component registry package (cmd/daprd/components) registers every
# component behind the build tag stablecomponents or allcomponents, and a
# guard file panics at start when neither is set. With a tag, the build
# compiles some fifty cloud SDKs this target never uses. So daprd is built from
# a copy of the dapr module whose guard is an empty file (go build's -overlay may not
# touch the module cache), no component is registered by tag, and
# runtime/cmd/daprd registers the two this target configures. The copy and
# the go.mod pointing at it live in the build directory, at fixed paths, so
# Go's build cache serves a rebuild.
cd "$here/runtime"
dapr_dir=$(go list -m -f '{{.Dir}}' github.com/dapr/dapr)
if [ -z "$dapr_dir" ] || [ ! -d "$dapr_dir" ]; then
  go mod download github.com/dapr/dapr
  dapr_dir=$(go list -m -f '{{.Dir}}' github.com/dapr/dapr)
fi
src="$SFBENCH_BUILD_DIR/dapr-src"
rm -rf "$src"
cp -R "$dapr_dir" "$src"
chmod -R u+w "$src"
printf 'package components\n' > "$src/cmd/daprd/components/zz_notag.go"
cp go.mod "$SFBENCH_BUILD_DIR/daprd.mod"
cp go.sum "$SFBENCH_BUILD_DIR/daprd.sum"
printf '\nreplace github.com/dapr/dapr => %s\n' "$src" >> "$SFBENCH_BUILD_DIR/daprd.mod"
go build -buildvcs=false -trimpath -modfile "$SFBENCH_BUILD_DIR/daprd.mod" -o "$SFBENCH_BUILD_DIR/" ./cmd/daprd ./cmd/placement
