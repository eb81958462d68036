#!/usr/bin/env bash
# Runs a command with TMPDIR set to a directory of its own and removes that directory afterwards, whatever the
# command's exit. Tests make many temporary directories (git homes, caches, runtime data, control-plane state);
# a test that stops early or forgets one would otherwise leave it in /tmp on every run of `make test`.
set -uo pipefail
scratch=$(mktemp -d -t cwt.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
TMPDIR=$scratch "$@"
