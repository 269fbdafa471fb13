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
# listed NAME INPUT: a list input's entries, one per line or separated by spaces (a workflow's
# YAML block gives one per line), into the array NAME; each must exist and be readable, and an
# empty list is refused, so that nothing passes unread.
listed() {
  local -n into=$1
  read -r -d '' -a into <<<"$2" || true
  local entry
  for entry in "${into[@]}"; do
    if ! [ -r "$entry" ] || { [ -d "$entry" ] && ! [ -x "$entry" ]; }; then
      echo "::error::$3 '$entry' does not exist or cannot be read" >&2
      exit 2
    fi
  done
}
args=(lint -f github --fail-on "$INPUT_FAIL_ON")
if [ -n "$INPUT_CONFIG" ]; then
  args+=(-c "$INPUT_CONFIG")
fi
listed paths "$INPUT_PATHS" "path"
if [ "${#paths[@]}" = 0 ]; then
  echo "::error::no paths to lint: give files or directories in the paths input" >&2
  exit 2
fi
tests=()
listed tests "$INPUT_TESTS" "promtool tests"
status=0
"$gpuobs" "${args[@]}" "${paths[@]}" || status=$?
if [ "${#tests[@]}" -gt 0 ]; then
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
  while IFS= read -r file; do
    "$promtool" test rules "${flags[@]}" --junit="$INPUT_JUNIT_DIR/$(basename "$file" .yaml).xml" "$file" || { [ "$status" != 0 ] || status=1; }
  done < <(find "${tests[@]}" -type f -name '*.yaml' | sort)
fi
exit "$status"
