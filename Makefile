# gpuobs: generate the default catalog's output, test everything with the real promtool.
GO        ?= go
# A pinned tool's binary, built by go tool when the build cache lacks it, found once per
# recipe line that names it: recipes run the binary itself, since each `go tool` call spends
# about two CPU-seconds loading its module before the tool starts.
tool       = $(shell $(GO) tool -n -modfile=tools/$(1)/go.mod $(1))
PROMTOOL   = $(call tool,promtool)
PINT       = $(call tool,pint)
AMTOOL     = $(call tool,amtool)
GOLANGCI  := $(GO) tool -modfile=tools/golangci-lint/go.mod golangci-lint
RULES     := $(wildcard rules/*.yaml)
PROMTESTS := $(wildcard tests/promtool/*.yaml)

JSONNET   := $(wildcard libsonnet/*.libsonnet libsonnet/*/*.libsonnet) internal/cli/starter.jsonnet

.PHONY: all build fmt check-fmt check-tidy lint-go generate check-generated test test-go test-promtool test-alertmanager lint-generated lint-pint test-integrations test-precommit test-mutations promtool amtool bench fuzz e2e e2e-sharded

all: test

build:
	$(GO) build -o bin/gpuobs ./cmd/gpuobs

## fmt: format Go and Jsonnet sources
fmt:
	gofmt -w .
	$(GO) tool jsonnetfmt -i $(JSONNET)

## check-fmt: fail on unformatted Go or Jsonnet sources
check-fmt:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "run make fmt"; exit 1; }
	$(GO) tool jsonnetfmt --test $(JSONNET)

## check-tidy: fail when go.mod or go.sum drift from what the imports need
check-tidy:
	$(GO) mod tidy -diff

## lint-go: golangci-lint with .golangci.yml (standard linters), e2e and bench code included
lint-go:
	$(GOLANGCI) run --build-tags e2e,bench ./...

## generate: regenerate the checked-in output of the embedded catalog
generate:
	$(GO) run ./cmd/gpuobs generate -o .

## check-generated: fail when the checked-in output is stale
check-generated:
	$(GO) run ./cmd/gpuobs generate --check -o .

## promtool: build the pinned promtool once (cached by the Go build cache afterwards)
promtool:
	$(PROMTOOL) --version >/dev/null

## amtool: build the pinned amtool once
amtool:
	$(AMTOOL) --version >/dev/null 2>&1

## test: everything CI runs
test: check-fmt check-tidy check-generated lint-go test-go test-promtool test-alertmanager lint-generated lint-pint test-integrations

## test-alertmanager: the generated Alertmanager configuration passes amtool check-config
test-alertmanager: amtool
	$(AMTOOL) check-config alertmanager/alertmanager.yml

## lint-generated: the generated rules and dashboards lint clean, warnings included
lint-generated:
	$(GO) run ./cmd/gpuobs lint --fail-on info rules/ dashboards/

## test-go: go vet and go test, the mutation runs included
test-go: promtool amtool
	$(GO) vet ./...
	$(GO) test -timeout 20m ./...

## test-mutations: only the mutation runs, uncached (neither go test's cache nor the kept
## promtool runs): the generated promtool tests reject each mutated rule (one promtool run per
## mutation, on the tests of what it breaks; make test runs them too)
MUTATIONS := TestGeneratedTestsCatchBrokenRules
test-mutations: promtool
	GPUOBS_TEST_RUNS=off $(GO) test -count=1 -timeout 20m -run '^$(MUTATIONS)$$' ./generators/promtooltests/

## test-promtool: promtool check + test on the generated files, one process per file, both cores
# promtool's JUnit reports of the generated tests, one per test file, for CI systems that show them.
JUNIT := .reports/promtool

test-promtool: promtool
	$(PROMTOOL) check rules $(RULES)
	mkdir -p $(JUNIT)
	printf '%s\n' $(PROMTESTS) | xargs -P 2 -I{} sh -c 'GOGC=400 $(PROMTOOL) test rules --junit=$(JUNIT)/$$(basename {} .yaml).xml {}'
	for t in $(PROMTESTS); do grep -q '<testsuites' $(JUNIT)/$$(basename $$t .yaml).xml; done

# Catalogs whose rules the embedded one lacks, which pint reviews too: DCGM 4's recovery
# action and Grace Blackwell's fabric (4.9, gb200), DRA, and a team's own catalog on a mixed
# fleet and beside Grace Blackwell racks, and a lab's Slurm fleet.
PINT_CATALOGS := generators/promtooltests/testdata/gb200.jsonnet generators/promtooltests/testdata/dra.jsonnet internal/testutil/plantest/testdata/mixed.jsonnet internal/testutil/plantest/testdata/adopter-gb200.jsonnet generators/promtooltests/testdata/slurm-adopter.jsonnet

## lint-pint: pint (pinned in tools/pint) reviews the generated rules, the embedded catalog's
## and those of PINT_CATALOGS; nothing at warning or above
lint-pint: build
	$(PINT) --offline --no-color lint --fail-on warning $(RULES)
	@for c in $(PINT_CATALOGS); do \
	  d=$$(mktemp -d) && bin/gpuobs generate -c $$c -o $$d >/dev/null 2>&1 || { echo "lint-pint: $$c does not generate"; exit 1; }; \
	  out=$$($(PINT) --offline --no-color lint --fail-on warning $$d/rules/*.yaml 2>&1) || { echo "$$out"; echo "lint-pint: pint finds problems in the rules of $$c"; exit 1; }; \
	  echo "pint: the rules of $$c pass"; rm -rf $$d; \
	done

## test-integrations: the GitHub action's script on a clean and a broken file
test-integrations: build
	integrations/action_test.sh bin/gpuobs

## test-precommit: the pre-commit hooks run for real by Debian's pre-commit on a throwaway
## repository (needs pre-commit on the PATH: .ci/run installs it; make test does not need it)
test-precommit:
	integrations/precommit_test.sh

## bench: generation, rule-evaluation and lint benchmarks (lint against promtool and pint); the
## bench package builds only with -tags bench, so that go test ./... does not link it
bench: promtool
	$(PINT) version >/dev/null
	$(GO) test -tags bench -run '^$$' -bench . -benchmem ./bench/...

## fuzz: every fuzz target for FUZZTIME each (go test prints executions per second)
FUZZTIME ?= 60s
FUZZ_TARGETS := FuzzDecode:./internal/catalog FuzzMayHold:./internal/source FuzzReadRules:./internal/lint FuzzReadDashboard:./internal/lint FuzzParse:./internal/promql FuzzEscapes:./internal/escape FuzzIndent:./internal/jsontext FuzzCompact:./internal/jsontext FuzzReports:./internal/lint FuzzReportNames:./internal/semdiff FuzzReportNames:./internal/backtest FuzzReceiverValues:./internal/amconfig
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		echo "== $${t%%:*}"; \
		$(GO) test -run '^$$' -fuzz "^$${t%%:*}$$" -fuzztime $(FUZZTIME) $${t#*:} || exit 1; \
	done

## e2e: the generated rules and Alertmanager config in a real Prometheus and Alertmanager
## (built from the pinned modules), fed by a synthetic dcgm-exporter, with faults injected
E2E_BIN := .e2e
e2e:
	$(GO) vet -tags e2e ./e2e/
	e2e/build.sh $(E2E_BIN)
	GPUOBS_PROMETHEUS=$(CURDIR)/$(E2E_BIN)/prometheus GPUOBS_ALERTMANAGER=$(CURDIR)/$(E2E_BIN)/alertmanager \
		$(GO) test -tags e2e -count=1 -v -timeout 10m -run 'TestEndToEnd$$|TestHarness' ./e2e/

## e2e-sharded: the sharded output on two Prometheus (cluster an external label), Thanos
## sidecars, a querier and a ruler evaluating rules/global/ (Thanos built from tools/thanos),
## and Alertmanager
e2e-sharded:
	$(GO) vet -tags e2e ./e2e/
	e2e/build.sh $(E2E_BIN) thanos
	GPUOBS_PROMETHEUS=$(CURDIR)/$(E2E_BIN)/prometheus GPUOBS_ALERTMANAGER=$(CURDIR)/$(E2E_BIN)/alertmanager GPUOBS_THANOS=$(CURDIR)/$(E2E_BIN)/thanos \
		$(GO) test -tags e2e -count=1 -v -timeout 10m -run 'TestShardedEndToEnd$$' ./e2e/
