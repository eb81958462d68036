#!/usr/bin/env bash
# Debian packages the tests use: git, git-lfs and zstd (real clients for the repository service and deploy
# artifacts), Chromium (the browser tests drive it headless through playwright-core, which downloads no
# browser of its own), python3-venv (the Python tools' virtualenv) and jq (the README's examples read JSON with it).
# Installed with apt-get only when one is missing.
source "$(dirname "$0")/lib.sh"
missing=()
for pkg in git git-lfs zstd chromium python3-venv jq; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get to install them"
  log "installing Debian packages: ${missing[*]}"
  SUDO=; [[ $(id -u) == 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
