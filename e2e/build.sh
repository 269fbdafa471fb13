#!/bin/sh
# Builds the pinned Prometheus and Alertmanager servers for the end-to-end run into DIR, and
# Thanos too when asked.
# Usage: e2e/build.sh DIR [thanos]   (from the repository root)
set -eu
out=$1
mkdir -p "$out"
if [ "${2:-}" = thanos ]; then
	# Thanos from its own tool module (its replace directives repeated there).
	# Its release builds use the slicelabels tag (.promu.yml): its gRPC label encoding assumes
	# that layout of Prometheus labels, and the default one makes the querier panic.
	go build -tags slicelabels -o "$out/thanos" -modfile=tools/thanos/go.mod github.com/thanos-io/thanos/cmd/thanos
fi
# Prometheus from the same pinned module as promtool; without the builtinassets tag it serves
# its HTTP API without the npm-built web UI.
go build -o "$out/prometheus" -modfile=tools/promtool/go.mod github.com/prometheus/prometheus/cmd/prometheus
# Alertmanager embeds its npm-built UI (ui/app/dist), which the module on the proxy does not
# ship: build it from a copy of the pinned module with placeholder pages (the run uses the
# HTTP API only).
go mod download -modfile=tools/amtool/go.mod github.com/prometheus/alertmanager
src=$(go list -modfile=tools/amtool/go.mod -m -f '{{.Dir}}' github.com/prometheus/alertmanager)
rm -rf "$out/alertmanager-src"
cp -R "$src" "$out/alertmanager-src"
chmod -R u+w "$out/alertmanager-src"
for ui in elm mantine; do
	mkdir -p "$out/alertmanager-src/ui/app/dist/$ui"
	echo '<!doctype html><title>Alertmanager</title><p>UI not built (gpuobs e2e).' > "$out/alertmanager-src/ui/app/dist/$ui/index.html"
done
(cd "$out/alertmanager-src" && GOWORK=off GOFLAGS=-mod=mod go build -o ../alertmanager ./cmd/alertmanager)
rm -rf "$out/alertmanager-src"
