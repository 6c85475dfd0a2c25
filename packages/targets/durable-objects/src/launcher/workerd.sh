#!/bin/sh
# Started by Miniflare in workerd's place (MINIFLARE_WORKERD_PATH, set by
# target.ts): adds the autogates named in SFBENCH_WORKERD_AUTOGATES to the
# config that Miniflare writes on stdin (autogates.mjs says why), then
# becomes workerd (exec: same pid, same arguments, same control pipe).
set -eu
cfg=$(mktemp "${TMPDIR:-/tmp}/workerd-config.XXXXXX")
"$SFBENCH_NODE" "$(dirname "$0")/autogates.mjs" > "$cfg"
exec < "$cfg"
rm -f "$cfg"
exec "$SFBENCH_WORKERD" "$@"
