#!/usr/bin/env bash
# A virtualenv with the pinned Python tools (moto's server, schemathesis, openapi-spec-validator), keyed by
# the requirements file's hash.
source "$(dirname "$0")/lib.sh"
req=$ROOT/e2e/requirements.txt
key=$( (python3 --version; cat "$req") | sha256sum | cut -c1-16)
dir=$CACHE/venv-$key
# A venv records its own path in its scripts, so it is built in place; `.complete`, written last, marks it
# usable.
if [[ ! -f $dir/.complete ]]; then
  log "creating the Python tools virtualenv (moto, schemathesis, openapi-spec-validator)"
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  touch "$dir/.complete"
fi
link moto_server "$dir/bin/moto_server"
link schemathesis "$dir/bin/schemathesis"
link openapi-spec-validator "$dir/bin/openapi-spec-validator"
