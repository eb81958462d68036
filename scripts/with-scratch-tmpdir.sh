#!/usr/bin/env bash
# Runs a command with TMPDIR set to a directory of its own and removes that directory afterwards. Tests make many
# temporary directories (git homes, caches, runtime data, control-plane state); a test that stops early or forgets
# one would otherwise leave it in /tmp on every run of `make test`. When the command fails, or CW_KEEP_TEST_STATE is
# set, the directory is kept (the logs the failures name are in it) and its path is said.
set -uo pipefail
scratch=$(mktemp -d -t cwt.XXXXXX)
TMPDIR=$scratch "$@"
status=$?
if [[ $status -ne 0 || -n "${CW_KEEP_TEST_STATE:-}" ]]; then
  echo "the run's temporary files are kept in $scratch" >&2
else
  rm -rf --one-file-system "$scratch"
fi
exit $status
