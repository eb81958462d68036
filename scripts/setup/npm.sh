#!/usr/bin/env bash
# The npm dependencies (`npm ci`, the workspaces' included), once per change of the lockfile. Under a lock of the
# checkout: `npm ci` deletes node_modules first, so a second setup started meanwhile (two `make` commands at
# once) would pull it from under the first, or from under tests it already runs; it waits, then finds it done.
source "$(dirname "$0")/lib.sh"
mkdir -p "$ROOT/.tools"
exec 9>"$ROOT/.tools/npm.lock"
flock 9
stamp=$ROOT/node_modules/.installed
if [[ -f $stamp && $stamp -nt $ROOT/package-lock.json ]]; then exit 0; fi
(cd "$ROOT" && npm ci --no-audit --no-fund)
# workerd's binary ships in its platform package (the wrapper package's other platforms are not all on every
# registry mirror, which breaks `npm ci`); expose it like the other tools.
link workerd ../../node_modules/@cloudflare/workerd-linux-64/bin/workerd
touch "$stamp"
