#!/usr/bin/env bash
# Builds this Next.js app with OpenNext's Cloudflare adapter and packs it as a Cloudwright runtime artifact.
# Usage: ./build.sh OUT.tar.zst   (needs Node 24, npm and zstd; run `npm install` first)
set -euo pipefail
out=${1:?usage: build.sh OUT.tar.zst}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")"
export NEXT_TELEMETRY_DISABLED=1 WRANGLER_SEND_METRICS=false

rm -rf .open-next dist artifact
npx opennextjs-cloudflare build                       # next build, then .open-next/worker.js + .open-next/assets
npx wrangler deploy --dry-run --outdir dist           # bundles the worker: dist/worker.js (+ .map, README.md)

mkdir -p artifact
# Modules only (wasm, if any, too): the runtime refuses files of unknown type outside assets/, such as dist/README.md.
find dist -maxdepth 1 -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' -o -name '*.wasm' \) -exec cp {} artifact/ \;
cp -r .open-next/assets artifact/assets
cat > artifact/cloudwright.json <<'JSON'
{ "main": "worker.js", "compatibility_date": "2025-09-01", "compatibility_flags": ["nodejs_compat", "global_fetch_strictly_public"] }
JSON
COPYFILE_DISABLE=1 tar -C artifact -cf - . | zstd -q -19 -f -o "$out"
echo "artifact: $out ($(stat -c%s "$out") bytes)"
