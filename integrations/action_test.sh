#!/usr/bin/env bash
# Runs the GitHub action's script locally, as the runner would, on a clean and a broken rule
# file: annotations and exit codes, and a refused unpinned version.
set -euo pipefail
gpuobs=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/good.yaml" <<'YAML'
groups:
  - name: g
    rules:
      - record: node:dcgm_gpu_temp:max
        expr: max by (cluster, Hostname) (DCGM_FI_DEV_GPU_TEMP)
YAML
cat >"$work/bad.yaml" <<'YAML'
groups:
  - name: g
    rules:
      - record: cluster:dcgm_power_usage:sum
        expr: sum by (cluster) (DCGM_FI_DEV_POWER_USAGE)
YAML
run() { (cd "$work" && env GPUOBS="$gpuobs" INPUT_VERSION=v0.1.0 "$@" "$OLDPWD/integrations/action.sh"); }
fail() { echo "action_test: $*" >&2; exit 1; }

run INPUT_PATHS=good.yaml >"$work/out" 2>&1 || fail "a clean file failed: $(cat "$work/out")"
set +e
run INPUT_PATHS="good.yaml bad.yaml" >"$work/out" 2>&1
code=$?
set -e
[ "$code" = 3 ] || fail "a broken file: exit $code, want 3: $(cat "$work/out")"
grep -q '^::error file=bad.yaml,line=5' "$work/out" || fail "no annotation on bad.yaml:5: $(cat "$work/out")"
set +e
(cd "$work" && env GPUOBS="$gpuobs" INPUT_VERSION=latest "$OLDPWD/integrations/action.sh") >"$work/out" 2>&1
code=$?
set -e
[ "$code" = 2 ] && grep -q "is not pinned" "$work/out" || fail "an unpinned version: exit $code: $(cat "$work/out")"
(cd "$work" && env GPUOBS="$gpuobs" INPUT_VERSION=0123456789abcdef0123456789abcdef01234567 INPUT_PATHS=good.yaml "$OLDPWD/integrations/action.sh") >"$work/out" 2>&1 || fail "a commit hash is a pin: $(cat "$work/out")"
echo "action_test: ok"
