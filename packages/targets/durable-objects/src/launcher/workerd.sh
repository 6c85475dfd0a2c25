#!/bin/sh
# workerd as the launcher runs it. Miniflare starts this in workerd's place
# (MINIFLARE_WORKERD_PATH, set by target.ts); it
#  - raises the open-files limit as far as the system allows: every live
#    Durable Object holds three files open (its SQLite database, WAL and
#    shared memory) for 10 s or more, and a standard run's audit reads
#    ~14,000 of them: past a limit of 20,000 unless paced (target.json
#    audit.readsPerSecond) or raised (a root process with CAP_SYS_RESOURCE
#    may go up to fs.nr_open; others get their hard limit);
#  - adds the autogates named in SFBENCH_WORKERD_AUTOGATES to the config
#    that Miniflare writes on stdin (autogates.mjs says why);
# then becomes workerd (exec: same pid, same arguments, same control pipe).
set -eu
ulimit -n "$(cat /proc/sys/fs/nr_open 2>/dev/null || echo 1048576)" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
cfg=$(mktemp "${TMPDIR:-/tmp}/workerd-config.XXXXXX")
"$SFBENCH_NODE" "$(dirname "$0")/autogates.mjs" > "$cfg"
exec < "$cfg"
rm -f "$cfg"
exec "$SFBENCH_WORKERD" "$@"
