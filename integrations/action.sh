#!/usr/bin/env bash
# The GitHub action's step (action.yml): install the pinned gpuobs, lint with annotations.
# GPUOBS names a gpuobs binary to use instead of installing one (integrations/action_test.sh).
set -euo pipefail
: "${INPUT_PATHS:=rules/ dashboards/}" "${INPUT_CONFIG:=}" "${INPUT_FAIL_ON:=error}" "${INPUT_VERSION:=}"
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
exec "$gpuobs" "${args[@]}" "${paths[@]}"
