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
# A list input written one path per line (a YAML block in the workflow) is read whole.
set +e
run INPUT_PATHS=$'good.yaml\nbad.yaml\n' >"$work/out" 2>&1
code=$?
set -e
[ "$code" = 3 ] && grep -q '^::error file=bad.yaml,line=5' "$work/out" || fail "paths one per line: exit $code, want 3 on bad.yaml: $(cat "$work/out")"
# A path that does not exist, or cannot be read, is refused, not skipped.
for missing in $'good.yaml\nnot-there.yaml' "good.yaml /proc/1/root/x"; do
  set +e
  run INPUT_PATHS="$missing" >"$work/out" 2>&1
  code=$?
  set -e
  [ "$code" = 2 ] && grep -q "cannot be read" "$work/out" || fail "an unreadable path ($missing): exit $code, want 2: $(cat "$work/out")"
done
set +e
run INPUT_PATHS=$' \n ' >"$work/out" 2>&1
code=$?
set -e
[ "$code" = 2 ] && grep -q "no paths" "$work/out" || fail "an empty paths input: exit $code, want 2: $(cat "$work/out")"
set +e
(cd "$work" && env GPUOBS="$gpuobs" INPUT_VERSION=latest "$OLDPWD/integrations/action.sh") >"$work/out" 2>&1
code=$?
set -e
[ "$code" = 2 ] && grep -q "is not pinned" "$work/out" || fail "an unpinned version: exit $code: $(cat "$work/out")"
(cd "$work" && env GPUOBS="$gpuobs" INPUT_VERSION=0123456789abcdef0123456789abcdef01234567 INPUT_PATHS=good.yaml "$OLDPWD/integrations/action.sh") >"$work/out" 2>&1 || fail "a commit hash is a pin: $(cat "$work/out")"

# The generated promtool tests, with the promtool of tools/promtool/go.mod and a JUnit report
# per file; a failing test fails the step, a missing test path is refused.
version=$(sed -n 's/^promtool_version=//p' integrations/action.sh)
grep -Eq "github.com/prometheus/prometheus $version( |$)" tools/promtool/go.mod || fail "the action installs promtool $version, tools/promtool/go.mod pins another"
go build -modfile=tools/promtool/go.mod -o "$work/promtool" github.com/prometheus/prometheus/cmd/promtool
mkdir -p "$work/tests"
cat >"$work/tests/good.test.yaml" <<'YAML'
rule_files: [../good.yaml]
tests:
  - interval: 1m
    input_series:
      - series: 'DCGM_FI_DEV_GPU_TEMP{cluster="a", Hostname="n", gpu="0"}'
        values: '60x5'
    promql_expr_test:
      - expr: node:dcgm_gpu_temp:max
        eval_time: 2m
        exp_samples: [{labels: 'node:dcgm_gpu_temp:max{cluster="a", Hostname="n"}', value: 60}]
YAML
tests() { run GPUOBS_PROMTOOL="$work/promtool" INPUT_PATHS=good.yaml "$@"; }
tests INPUT_TESTS=tests INPUT_JUNIT_DIR=junit >"$work/out" 2>&1 || fail "a passing test failed: $(cat "$work/out")"
grep -q '<testsuite name="tests/good.test.yaml" tests="1" failures="0"' "$work/junit/good.test.xml" || fail "no JUnit report: $(ls "$work/junit" 2>&1)"
sed -i 's/value: 60/value: 61/' "$work/tests/good.test.yaml"
set +e
tests INPUT_TESTS=tests >"$work/out" 2>&1
code=$?
tests INPUT_TESTS=missing >"$work/out2" 2>&1
missing=$?
set -e
[ "$code" = 1 ] || fail "a failing test: exit $code, want 1: $(cat "$work/out")"
[ "$missing" = 2 ] && grep -q "cannot be read" "$work/out2" || fail "missing tests: exit $missing: $(cat "$work/out2")"
# Tests one per line: the failing file is run, not only the first line's.
cp "$work/tests/good.test.yaml" "$work/second.test.yaml"
sed -i 's#../good.yaml#good.yaml#' "$work/second.test.yaml"
set +e
tests INPUT_TESTS=$'missing-first-line-is-not-enough.test.yaml\nsecond.test.yaml' >"$work/out" 2>&1
code=$?
tests INPUT_TESTS=$'second.test.yaml\ntests' >"$work/out" 2>&1
lines=$?
set -e
[ "$code" = 2 ] || fail "tests one per line, the first missing: exit $code, want 2: $(cat "$work/out")"
[ "$lines" = 1 ] || fail "tests one per line, the second failing: exit $lines, want 1: $(cat "$work/out")"
echo "action_test: ok"
