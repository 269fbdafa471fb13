#!/usr/bin/env bash
# Runs the pre-commit hooks of .pre-commit-hooks.yaml for real (Debian's pre-commit), as a
# monitoring repository would: on a throwaway git repository holding gpuobs' generated output.
# pre-commit builds gpuobs from this checkout with the machine's Go (modules from the usual
# module cache).
set -euo pipefail
command -v pre-commit >/dev/null || { echo "precommit_test: pre-commit is missing (apt-get install pre-commit)" >&2; exit 1; }
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache" GOMODCACHE="$(go env GOMODCACHE)" GOFLAGS="${GOFLAGS:-} -modcacherw"
fail() { echo "precommit_test: $*" >&2; exit 1; }

mkdir "$work/mon"
cd "$work/mon"
git init -q
git config user.email ci@example.com
git config user.name ci
go run -C "$repo" ./cmd/gpuobs generate -o "$work/mon" >/dev/null
git add -A
git commit -qm "generated monitoring"

try() { pre-commit try-repo "$repo" "$@" >"$work/out" 2>&1; }
try gpuobs-lint --files rules/alerts.yaml rules/recording.yaml dashboards/l1.json || fail "lint on clean files failed: $(cat "$work/out")"
try gpuobs-generate-check --all-files || fail "generate --check on fresh output failed: $(cat "$work/out")"
# The hook keeps the catalog's evaluation in pre-commit's home, which CI caches with the hooks.
ls "$PRE_COMMIT_HOME"/gpuobs/catalog/* >/dev/null 2>&1 || fail "no evaluation kept in $PRE_COMMIT_HOME/gpuobs/catalog"

printf 'groups:\n  - name: g\n    rules:\n      - record: cluster:dcgm_power_usage:sum\n        expr: sum by (cluster) (DCGM_FI_DEV_POWER_USAGE)\n' >rules/mine.yaml
sed -i 's/for: 15m/for: 16m/' rules/alerts.yaml
git add -A
if try gpuobs-lint --files rules/mine.yaml; then fail "lint passed a MIG double count: $(cat "$work/out")"; fi
grep -q "promql/mig-double-count" "$work/out" || fail "lint did not name the problem: $(cat "$work/out")"
if try gpuobs-generate-check --all-files; then fail "generate --check passed an edited generated file: $(cat "$work/out")"; fi
grep -q "stale: rules/alerts.yaml" "$work/out" || fail "generate --check did not name the stale file: $(cat "$work/out")"
echo "precommit_test: ok"
