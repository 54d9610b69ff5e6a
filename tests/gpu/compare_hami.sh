#!/usr/bin/env bash
# HAMi's scheduler and the extender's GPUShare plugin on the same random clusters (tests/gpu/hami).
#
#   HAMI_SRC=/path/to/HAMi tests/gpu/compare_hami.sh [hami-compare flags: -seeds 10 -nodes 120 -probes 100]
#
# HAMI_SRC is a checkout of HAMi's release tag (v2.10.0): the Go module proxy serves no version of
# github.com/Project-HAMi/HAMi (403), so the module cannot be pinned in go.sum like the other references.
# BUILD (default build) holds gpu-fit-driver.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
if [[ -z "${HAMI_SRC:-}" || ! -f "${HAMI_SRC}/go.mod" ]]; then
  echo "compare_hami.sh: set HAMI_SRC to a checkout of HAMi v2.10.0 (the Go module proxy does not serve it)" >&2
  exit 2
fi
grep -q '^module github.com/Project-HAMi/HAMi$' "$HAMI_SRC/go.mod" || {
  echo "compare_hami.sh: $HAMI_SRC/go.mod is not github.com/Project-HAMi/HAMi" >&2
  exit 2
}
cmake --build "$build" --target gpu-fit-driver >/dev/null
ln -sfn "$(cd "$HAMI_SRC" && pwd)" "$here/hami/hami-src"
bin=$(mktemp -d)
trap 'rm -rf "$bin" "$here/hami/hami-src"' EXIT
# cgo (go-nvml) prints deprecation warnings of NVML's headers; the build's own errors still show.
(cd "$here/hami" && go build -o "$bin/hami-compare" . 2> >(grep -v -e 'cgo-gcc-prolog' -e 'deprecated' -e 'nvml.h' -e '^ *[0-9]* |' -e '^ *|' >&2))
"$bin/hami-compare" -driver "$build/gpu-fit-driver" "$@"
