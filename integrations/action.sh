#!/usr/bin/env bash
# The GitHub action's step (action.yml): install the pinned gpuobs, lint with annotations, and
# run the generated promtool tests with the promtool gpuobs is tested with, a JUnit report per
# file. GPUOBS and GPUOBS_PROMTOOL name binaries to use instead of installing them
# (integrations/action_test.sh).
set -euo pipefail
: "${INPUT_PATHS:=rules/ dashboards/}" "${INPUT_CONFIG:=}" "${INPUT_FAIL_ON:=error}" "${INPUT_VERSION:=}"
: "${INPUT_TESTS:=}" "${INPUT_PROMTOOL_FEATURES:=}" "${INPUT_JUNIT_DIR:=promtool-junit}"
# The promtool of tools/promtool/go.mod (a test keeps the two the same).
promtool_version=v0.316.0
# Pinned: a release version, or a full commit hash (there is no release yet).
if ! [[ "$INPUT_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ || "$INPUT_VERSION" =~ ^[0-9a-f]{40}$ ]]; then
  echo "::error::gpuobs version '$INPUT_VERSION' is not pinned: give a release version (v1.2.3) or a full commit hash" >&2
  exit 2
fi
gpuobs="${GPUOBS:-}"
if [ -z "$gpuobs" ]; then
  GOBIN="${RUNNER_TEMP:-/tmp}/gpuobs-bin" go install "github.com/gpuobs/gpuobs/cmd/gpuobs@$INPUT_VERSION"
  gpuobs="${RUNNER_TEMP:-/tmp}/gpuobs-bin/gpuobs"
fi
args=(lint -f github --fail-on "$INPUT_FAIL_ON")
if [ -n "$INPUT_CONFIG" ]; then
  args+=(-c "$INPUT_CONFIG")
fi
read -r -a paths <<<"$INPUT_PATHS"
status=0
"$gpuobs" "${args[@]}" "${paths[@]}" || status=$?
if [ -n "$INPUT_TESTS" ]; then
  promtool="${GPUOBS_PROMTOOL:-}"
  if [ -z "$promtool" ]; then
    GOBIN="${RUNNER_TEMP:-/tmp}/gpuobs-bin" go install "github.com/prometheus/prometheus/cmd/promtool@$promtool_version"
    promtool="${RUNNER_TEMP:-/tmp}/gpuobs-bin/promtool"
  fi
  flags=()
  if [ -n "$INPUT_PROMTOOL_FEATURES" ]; then
    flags+=("--enable-feature=$INPUT_PROMTOOL_FEATURES")
  fi
  mkdir -p "$INPUT_JUNIT_DIR"
  read -r -a tests <<<"$INPUT_TESTS"
  for t in "${tests[@]}"; do
    [ -e "$t" ] || { echo "::error::promtool tests '$t' do not exist" >&2; exit 2; }
  done
  while IFS= read -r file; do
    "$promtool" test rules "${flags[@]}" --junit="$INPUT_JUNIT_DIR/$(basename "$file" .yaml).xml" "$file" || { [ "$status" != 0 ] || status=1; }
  done < <(find "${tests[@]}" -type f -name '*.yaml' | sort)
fi
exit "$status"
