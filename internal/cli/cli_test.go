package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// run executes gpuobs in-process and returns its exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(args, Options{Stdout: &stdout, Stderr: &stderr, Version: "v0.0.0-test", CatalogCache: testcatalog.CacheDir()})
	return code, stdout.String(), stderr.String()
}

func generate(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, stderr := run(t, append([]string{"generate", "-o", dir}, args...)...); code != ExitOK {
		t.Fatalf("generate exit %d: %s", code, stderr)
	}
	return dir
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := testutil.ReadTree(t, generate(t)), testutil.ReadTree(t, generate(t))
	if len(a) == 0 {
		t.Fatal("nothing generated")
	}
	for name, content := range a {
		if b[name] != content {
			t.Errorf("%s differs between two runs", name)
		}
		if !output.HasHeader(name, []byte(content)) {
			t.Errorf("%s lacks the generated-file header", name)
		}
	}
}

func TestCheckedInOutputIsFresh(t *testing.T) {
	code, stdout, stderr := run(t, "generate", "--check", "-o", "../..")
	if code != ExitOK {
		t.Fatalf("checked-in output is stale (run make generate): exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestCheckReportsDrift(t *testing.T) {
	dir := generate(t)
	path := filepath.Join(dir, "rules", "alerts.yaml")
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "rules", "recording.yaml"))
	before := testutil.ReadTree(t, dir)
	code, stdout, _ := run(t, "generate", "--check", "-o", dir)
	if code != ExitError {
		t.Fatalf("exit %d on drift, want %d", code, ExitError)
	}
	for _, want := range []string{"stale: rules/alerts.yaml", "missing: rules/recording.yaml"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--check output lacks %q:\n%s", want, stdout)
		}
	}
	if after := testutil.ReadTree(t, dir); len(after) != len(before) || after["rules/alerts.yaml"] != before["rules/alerts.yaml"] {
		t.Error("--check wrote to the output directory")
	}
}

func TestBadCatalogLeavesOutputUntouched(t *testing.T) {
	dir := generate(t)
	before := testutil.ReadTree(t, dir)
	code, _, stderr := run(t, "generate", "-o", dir, "-c", "../catalog/testdata/schema-errors.jsonnet")
	if code != ExitError {
		t.Fatalf("exit %d for a bad catalog, want %d", code, ExitError)
	}
	if !strings.Contains(stderr, `alerts.GPUEccDoubleBit.for: invalid duration "5x"`) {
		t.Errorf("stderr does not name the catalog path:\n%s", stderr)
	}
	after := testutil.ReadTree(t, dir)
	for name, content := range before {
		if after[name] != content {
			t.Errorf("%s changed after a failed run", name)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"generate", "--no-such-flag"},
		{"generate", "extra-argument"},
		{"no-such-command"},
		{},
		{"version", "x"},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("gpuobs %v: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
}

// TestInitFromScrape: init --from-scrape writes a catalog that loads and says what the scrapes
// show (a 4.9 exporter under the Helm chart with a counter file, a Grace Blackwell node in
// MIG), each setting with its evidence; generate then watches the job the series carry. A
// scrape Prometheus would reject, or a text that is not the exporter's, is reported located,
// every file in one run, and nothing is written.
func TestInitFromScrape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	scrapes := []string{"../scrape/testdata/helm-49.prom", "../scrape/testdata/gb200-mig.prom"}
	code, _, stderr := run(t, "init", "-f", path, "--from-scrape", scrapes[0], "--from-scrape", scrapes[1])
	if code != ExitOK || !strings.Contains(stderr, "warning: the scrapes disagree on the host label") {
		t.Fatalf("init: exit %d %s", code, stderr)
	}
	content, _ := os.ReadFile(path)
	for _, want := range []string{
		"version: '4.9',", "the driver label is DCGM_FI_SYSTEM_DRIVER_VERSION",
		"Pod attribution arrives as exported_pod: the rules read pod and exported_pod alike", "platform: 'gb200',", "job: 'dcgm-exporter',",
		"'DCGM_FI_DEV_ECC_DBE_VOL_TOTAL',", "'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',",
		"Fields the catalog does not know (declare them in fields to read them): DCGM_FI_DEV_VENDOR_SPECIFIC_COUNTER",
		"MIG strategy", "the cluster:",
	} {
		if !strings.Contains(string(content), want) {
			t.Errorf("the catalog does not say %q:\n%s", want, content)
		}
	}
	dir := generate(t, "-c", path)
	alerts, err := os.ReadFile(filepath.Join(dir, "rules", "alerts.yaml"))
	if err != nil || !strings.Contains(string(alerts), `up{job="dcgm-exporter"}`) || !strings.Contains(string(alerts), `"exported_pod"`) {
		t.Errorf("the generated rules do not follow the scrape: %v", err)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonnet")
	code, _, stderr = run(t, "init", "-f", bad, "--from-scrape", "../scrape/testdata/bad-value.prom", "--from-scrape", "../scrape/testdata/not-dcgm.prom")
	if code != ExitError || !strings.Contains(stderr, "bad-value.prom:8: ") || !strings.Contains(stderr, "not-dcgm.prom: holds no DCGM_FI_") || strings.Contains(stderr, "goroutine") {
		t.Errorf("bad scrapes: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a catalog was written from scrapes that do not parse")
	}
}

// TestInitFromScrapeOnSlurm: a bare-metal node's scrape whose series carry hpc_job (a GPU of
// two jobs emitted twice) gives a Slurm catalog, and the rules generated from it read jobs
// from hpc_job and nodes from Slurm, not kube-state-metrics.
func TestInitFromScrapeOnSlurm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	code, _, stderr := run(t, "init", "-f", path, "--from-scrape", "../scrape/testdata/slurm-baremetal.prom")
	if code != ExitOK {
		t.Fatalf("init: exit %d %s", code, stderr)
	}
	content, _ := os.ReadFile(path)
	if !strings.Contains(string(content), "scheduler: 'slurm',") || strings.Contains(string(content), "Pod attribution") {
		t.Errorf("the catalog does not read the scrape as a Slurm node's:\n%s", content)
	}
	alerts, err := os.ReadFile(filepath.Join(generate(t, "-c", path), "rules", "alerts.yaml"))
	if err != nil || !strings.Contains(string(alerts), "slurm_node_gpus") || strings.Contains(string(alerts), "kube_node") {
		t.Errorf("the generated rules do not read Slurm: %v", err)
	}
}

// TestLintAgainstAScrape: lint --scrape checks the catalog's label profile against what the
// exporters send (each disagreement located at the scrape line that shows it, with the
// setting that fixes it, exit 1), and on a catalog that matches, the rules against the fields
// the scrape holds: the GPU Operator's default set leaves the ECC alert blind.
func TestLintAgainstAScrape(t *testing.T) {
	code, _, stderr := run(t, "lint", "--scrape", "../scrape/testdata/helm-49.prom", "../../rules")
	for _, want := range []string{"helm-49.prom:5: the series name the node hostname, the catalog reads Hostname", "set exporter.version to 4.9"} {
		if code != ExitError || !strings.Contains(stderr, want) {
			t.Errorf("a 4.9 scrape against the embedded catalog: exit %d, want %q in\n%s", code, want, stderr)
		}
	}
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') { exporter+: { job: 'nvidia-dcgm-exporter' } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scrape := "../../generators/promtooltests/testdata/scrapes/operator-l4.prom"
	code, stdout, stderr := run(t, "lint", "-c", config, "--fail-on", "warning", "--scrape", scrape, "../../rules")
	if code != ExitFindings || !strings.Contains(stdout, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL is not collected: the exporter's deployed set (--exporter-counters or --scrape) does not hold it") {
		t.Errorf("the default set's blind rules: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A 4.8.3 exporter (utilization in percent) against a catalog on 4.9 (ratios): the same
	// host label, but values beyond a ratio's bounds.
	on49 := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(on49, []byte("(import 'gpuobs.libsonnet') { exporter+: { version: '4.9' } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = run(t, "lint", "-c", on49, "--scrape", "../scrape/testdata/exporter-483.prom", "../../rules")
	for _, want := range []string{"exporter-483.prom:19: DCGM_FI_DEV_GPU_UTIL reads 87 to 87, beyond the ratio the catalog reads it in (0 to 1)", "exporter-483.prom:22: DCGM_FI_DEV_MEM_COPY_UTIL reads 41", "set exporter.version to 4.8.3"} {
		if code != ExitError || !strings.Contains(stderr, want) {
			t.Errorf("percent against ratios: exit %d, want %q in\n%s", code, want, stderr)
		}
	}
	// A curl of the exporter (no job: not what Prometheus stored) shows the exporter's own
	// labels: a catalog that relabels the host label matches it.
	relabels := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(relabels, []byte("(import 'gpuobs.libsonnet') { labels+: { host: 'node' } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "lint", "-c", relabels, "--scrape", "../scrape/testdata/gb200-mig.prom", "../../rules"); code == ExitError {
		t.Errorf("a curl against a catalog that relabels: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, "lint", "--scrape", scrape, "--exporter-counters", "../../exporter/dcgm-counters.csv", "../../rules"); code != ExitUsage || !strings.Contains(stderr, "give one") {
		t.Errorf("--scrape with --exporter-counters: exit %d %s", code, stderr)
	}
}

func TestInitWritesAStarterThatGeneratesTheDefault(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if code, _, stderr := run(t, "init", "-f", path); code != ExitOK {
		t.Fatalf("init: exit %d %s", code, stderr)
	}
	content, _ := os.ReadFile(path)
	if !bytes.Contains(content, []byte("import 'gpuobs.libsonnet'")) || !bytes.Contains(content, []byte("//")) {
		t.Errorf("starter is not a commented override of the library:\n%s", content)
	}
	// It shows where lint's settings go.
	for _, section := range []string{"fleet+:", "metrics+:", "lint+:", "policy+:"} {
		if !bytes.Contains(content, []byte(section)) {
			t.Errorf("starter does not show %s", section)
		}
	}
	// Untouched, the starter is the embedded catalog: same output byte for byte.
	fromStarter, fromDefault := testutil.ReadTree(t, generate(t, "-c", path)), testutil.ReadTree(t, generate(t))
	for name, c := range fromDefault {
		if fromStarter[name] != c {
			t.Errorf("%s differs between the starter and the embedded catalog", name)
		}
	}
	if code, _, stderr := run(t, "init", "-f", path); code != ExitError || !strings.Contains(stderr, "--force") {
		t.Errorf("second init: exit %d, want %d and a hint at --force: %s", code, ExitError, stderr)
	}
	if code, _, _ := run(t, "init", "-f", path, "--force"); code != ExitOK {
		t.Errorf("init --force: exit %d", code)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := run(t, "version")
	if code != ExitOK || stdout != "gpuobs v0.0.0-test\n" {
		t.Errorf("version: exit %d output %q", code, stdout)
	}
}

func TestLintExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("groups:\n  - name: g\n    rules:\n      - record: gpu_power\n        expr: sum(DCGM_FI_DEV_POWER_USAGE)\n      - record: node:x:avg\n        expr: avg(DCGM_FI_PROF_SM_OCCUPANCY)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"lint"}, ExitOK, ""},                // the catalog's own output
		{[]string{"lint", "../../rules"}, ExitOK, ""}, // the checked-in output
		{[]string{"lint", bad}, ExitFindings, "promql/mig-double-count"},
		{[]string{"lint", "--fail-on", "warning", bad}, ExitFindings, "exporter/not-collected"},
		{[]string{"lint", "-f", "json", bad}, ExitFindings, `"check": "promql/mig-double-count"`},
		{[]string{"lint", "-f", "sarif", bad}, ExitFindings, `"version": "2.1.0"`},
		{[]string{"lint", "-f", "checkstyle", bad}, ExitFindings, "<checkstyle"},
		{[]string{"lint", "-f", "github", bad}, ExitFindings, "::error file="},
		{[]string{"lint", "-f", "toml", bad}, ExitUsage, ""},
		{[]string{"lint", "--fail-on", "fatal", bad}, ExitUsage, ""},
		{[]string{"lint", "no/such/file.yaml"}, ExitError, ""},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stdout, c.out) {
			t.Errorf("gpuobs %v: exit %d (want %d), output lacks %q:\n%s%s", c.args, code, c.code, c.out, stdout, stderr)
		}
	}
	// A machine-read report keeps stdout to its format; what was read and skipped goes to
	// stderr.
	if _, stdout, stderr := run(t, "lint", "-f", "json", bad); !strings.HasPrefix(strings.TrimSpace(stdout), "[") || !strings.Contains(stderr, "checked 1 files: 1 rule groups, 2 rules") {
		t.Errorf("-f json: stdout %q, stderr %q", stdout, stderr)
	}
	// Only a warning, below the default --fail-on error: exit 0, but reported.
	warnOnly := filepath.Join(t.TempDir(), "warn.yaml")
	if err := os.WriteFile(warnOnly, []byte("groups:\n  - name: g\n    rules:\n      - record: gpu_power\n        expr: avg(DCGM_FI_PROF_SM_OCCUPANCY)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, "lint", warnOnly); code != ExitOK || !strings.Contains(stdout, "exporter/not-collected") {
		t.Errorf("warnings only: exit %d, output %q", code, stdout)
	}
}

// TestUncollectedFieldsWarn: generate warns about alerts on fields the exporter does not
// collect, and lint checks against a deployed counter file.
func TestUncollectedFieldsWarn(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') { exporter+: { extraCounters: ['DCGM_FI_DEV_CLOCK_THROTTLE_REASONS'] } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "-c", config, "-o", t.TempDir())
	if code != ExitOK || !strings.Contains(stderr, "warning: alert GPUEccDoubleBit reads DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, which the exporter does not collect") {
		t.Errorf("generate: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "-o", t.TempDir()); code != ExitOK || stderr != "" {
		t.Errorf("the embedded catalog collects what its alerts read: exit %d, stderr %q", code, stderr)
	}
	counters := filepath.Join(t.TempDir(), "counters.csv")
	if err := os.WriteFile(counters, []byte("# DCGM FIELD, Prometheus metric type, help message\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "lint", "--fail-on", "warning", "--exporter-counters", counters, "../../rules")
	if code != ExitFindings || !strings.Contains(stdout, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL is not collected") {
		t.Errorf("lint with a deployed counter file: exit %d\n%s", code, stdout)
	}
	if code, _, _ := run(t, "lint", "--fail-on", "warning", "--exporter-counters", "../../exporter/dcgm-counters.csv", "../../rules"); code != ExitOK {
		t.Errorf("lint against the generated counter file: exit %d", code)
	}
}

// TestManagedExportersSayWhatTheyLeaveBlind: where a cloud runs the exporter (GKE, AKS), no
// counter file of the team's is read: generate names each alert the managed field set leaves
// blind (GKE sends no XID or ECC field, AKS the exporter's default set), tells no one to deploy
// a counter file, watches the managed scrape's job and has no counter-file alert.
func TestManagedExportersSayWhatTheyLeaveBlind(t *testing.T) {
	for _, c := range []struct{ cloud, job, blind, seen string }{
		{"gke", "gke-managed-dcgm-exporter", "alert GPUXidFatal reads DCGM_EXP_XID_ERRORS_COUNT, DCGM_FI_DEV_XID_ERRORS, which the managed exporter (exporter.managed: gke) does not send", "GPUBusyNotWorking reads"},
		{"aks", "dcgm-exporter", "alert GPUBusyNotWorking reads DCGM_FI_PROF_SM_ACTIVE, which the managed exporter (exporter.managed: aks) does not send", "GPUXidFatal reads"},
	} {
		config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
		if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') { exporter+: { managed: '"+c.cloud+"' } }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		code, _, stderr := run(t, "generate", "-c", config, "-o", dir)
		if code != ExitOK || !strings.Contains(stderr, c.blind) || strings.Contains(stderr, c.seen) || strings.Contains(stderr, "deploy exporter/") {
			t.Errorf("%s: exit %d, stderr:\n%s", c.cloud, code, stderr)
		}
		alerts, err := os.ReadFile(filepath.Join(dir, "rules", "alerts.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(alerts), "DCGMExporterStockCounterSet") || !strings.Contains(string(alerts), `up{job="`+c.job+`"}`) {
			t.Errorf("%s: the counter-file alert is generated, or job %s is not watched", c.cloud, c.job)
		}
	}
}

func TestRulesFormats(t *testing.T) {
	dir := generate(t, "--rules-format", "operator,mimir")
	for _, f := range []string{"rules/operator/prometheusrule.yaml", "rules/mimir/gpuobs.yaml", "rules/alerts.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if code, _, _ := run(t, "generate", "--rules-format", "thanos", "-o", t.TempDir()); code != ExitUsage {
		t.Errorf("unknown format: exit %d, want %d", code, ExitUsage)
	}
}

// TestPlanIsBuiltOncePerCommand: generate and lint derive the plan once, however many
// outputs they render.
func TestPlanIsBuiltOncePerCommand(t *testing.T) {
	for _, args := range [][]string{
		{"generate", "-o", t.TempDir(), "--rules-format", "operator,mimir"},
		{"generate", "--check", "-o", t.TempDir()},
		{"lint"},
	} {
		builds := 0
		opts := Options{Stdout: io.Discard, Stderr: io.Discard, CatalogCache: testcatalog.CacheDir(), BuildPlan: func(m *model.Model) (*plan.Plan, error) {
			builds++
			return plan.Build(m)
		}}
		Run(args, opts)
		if builds != 1 {
			t.Errorf("gpuobs %s built the plan %d times, want once", strings.Join(args, " "), builds)
		}
	}
}

// TestLintBaseline: a repository adopts lint with a baseline; only problems it does not list
// fail, and moving a rule within its file does not raise its problems again.
func TestLintBaseline(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "gpu.yaml")
	baseline := filepath.Join(dir, "baseline.json")
	old := "      - record: node:power:sum\n        expr: sum(DCGM_FI_DEV_POWER_USAGE)\n"
	write := func(items string) {
		if err := os.WriteFile(rules, []byte("groups:\n  - name: g\n    rules:\n"+items), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(old)
	if code, stdout, stderr := run(t, "lint", "--write-baseline", baseline, rules); code != ExitOK || !strings.Contains(stdout, "wrote 1 problems") {
		t.Fatalf("--write-baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	moved := "      - record: node:ok:max\n        expr: max(DCGM_FI_DEV_GPU_TEMP)\n" + old
	write(moved)
	if code, stdout, _ := run(t, "lint", "--baseline", baseline, rules); code != ExitOK || !strings.HasSuffix(stdout, "; no problems\n") {
		t.Errorf("a moved rule's accepted problem: exit %d\n%s", code, stdout)
	}
	write(moved + "      - record: node:fb:sum\n        expr: count(DCGM_FI_DEV_GPU_TEMP)\n")
	if code, stdout, _ := run(t, "lint", "--baseline", baseline, rules); code != ExitFindings || strings.Count(stdout, "[promql/mig-double-count]") != 1 || !strings.Contains(stdout, "count over") {
		t.Errorf("a new problem: exit %d, want only it\n%s", code, stdout)
	}
}

// TestLintChangedSince: only the files a pull request changed are reported; the others are
// still read.
func TestLintChangedSince(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	bad := "groups:\n  - name: g\n    rules:\n      - record: node:power:sum\n        expr: sum(DCGM_FI_DEV_POWER_USAGE)\n"
	for _, name := range []string{"old.yaml", "new.yaml"} {
		if err := os.WriteFile(name, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", "old.yaml")
	git("commit", "-q", "-m", "base")
	git("add", "new.yaml")
	code, stdout, stderr := run(t, "lint", "--changed-since", "HEAD", ".")
	if code != ExitFindings || !strings.Contains(stdout, "new.yaml:5:") || strings.Contains(stdout, "old.yaml") {
		t.Errorf("--changed-since HEAD: exit %d\n%s%s", code, stdout, stderr)
	}
	// A ref that looks like an option is refused as a ref: git writes no file, the gate fails.
	code, stdout, stderr = run(t, "lint", "--changed-since=--output=planted.txt", ".")
	if code != ExitError || !strings.Contains(stderr, `--changed-since: "--output=planted.txt" is not a commit of this repository (git rev-parse: fatal: `) {
		t.Errorf("--changed-since=--output=FILE: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat("planted.txt"); err == nil {
		t.Error("git wrote the file an option-like ref named")
	}
	// A shallow clone that lacks the ref says so, with git's message.
	shallow := filepath.Join(t.TempDir(), "shallow")
	git("clone", "-q", "--depth=1", "file://"+dir, shallow)
	t.Chdir(shallow)
	code, _, stderr = run(t, "lint", "--changed-since", "HEAD~1", ".")
	if code != ExitError || !strings.Contains(stderr, "this is a shallow clone: fetch the ref first") || !strings.Contains(stderr, "fatal:") {
		t.Errorf("shallow clone: exit %d\n%s", code, stderr)
	}
}

// TestLintGlobalFlag: a rule file the Thanos ruler evaluates (--global) must not read raw
// series; the same file unplaced is not judged by placement.
func TestLintGlobalFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thanos-ruler")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fleet.yaml")
	if err := os.WriteFile(file, []byte("groups:\n  - name: g\n    rules:\n      - record: fleet:up:sum\n        expr: sum(up)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, "lint", "--fail-on", "warning", "--global", dir, file); code != ExitFindings || !strings.Contains(stdout, "placement/global-raw-series") {
		t.Errorf("--global %s: exit %d, output %q", dir, code, stdout)
	}
	if code, stdout, _ := run(t, "lint", "--fail-on", "warning", file); code != ExitOK || strings.Contains(stdout, "placement/") {
		t.Errorf("without --global: exit %d, output %q", code, stdout)
	}
}

// TestInlineSecretsAreRefusedUnprinted: a receiver integration with its secret inline fails
// generation at its catalog path, with the field that takes it by reference; the secret is
// printed nowhere, and a receiver no alert routes to is named with the ones that exist.
func TestInlineSecretsAreRefusedUnprinted(t *testing.T) {
	const secret = "R0UTING-KEY-never-shown"
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	catalog := `(import 'gpuobs.libsonnet') { alertmanager+: { integrations+: {
  'infra-pager': { pagerduty_configs: [{ routing_key: '` + secret + `' }] },
  'infra-ticket': { slack_configs: [{ api_url: 'https://hooks.slack.com/services/` + secret + `', channel: '#gpu' }] },
  'infra-pagr': { pagerduty_configs: [{ routing_key_file: '/etc/alertmanager/pd' }] },
} } }`
	if err := os.WriteFile(config, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "generate", "-o", t.TempDir(), "-c", config)
	if code != ExitError {
		t.Fatalf("exit %d, want %d: %s", code, ExitError, stderr)
	}
	for _, want := range []string{
		`alertmanager.integrations["infra-pager"].pagerduty_configs[0].routing_key: holds a secret inline; give it by reference (routing_key_file)`,
		`alertmanager.integrations["infra-ticket"].slack_configs[0].api_url: holds a secret inline; give it by reference (api_url_file)`,
		`alertmanager.integrations["infra-pagr"]: is not a receiver of alertmanager.receivers; the receivers are inference-pager, inference-ticket, infra-pager,`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout+stderr, "R0UTING") {
		t.Errorf("the secret is printed:\n%s%s", stdout, stderr)
	}
}

// TestTeamCatalogsGenerateAndLintClean: a team's own catalog (every label and team renamed,
// integrations, sections off, an alert of its own) and a training fleet's (every section off)
// generate, lint clean with infos counted, and are up to date for generate --check. (Their
// promtool tests run in generators/promtooltests, amtool in generators/alertmanager.)
func TestTeamCatalogsGenerateAndLintClean(t *testing.T) {
	for _, config := range []string{"../testutil/plantest/testdata/adopter.jsonnet", "../testutil/plantest/testdata/training.jsonnet"} {
		t.Run(filepath.Base(config), func(t *testing.T) {
			dir := generate(t, "-c", config)
			if code, stdout, stderr := run(t, "lint", "-c", config, "--fail-on", "info", filepath.Join(dir, "rules"), filepath.Join(dir, "dashboards")); code != ExitOK {
				t.Errorf("lint: exit %d\n%s%s", code, stdout, stderr)
			}
			if code, _, stderr := run(t, "generate", "--check", "-c", config, "-o", dir); code != ExitOK {
				t.Errorf("generate --check: exit %d %s", code, stderr)
			}
		})
	}
}

// TestGenerateSaysWhatChanged: generate counts the files it changed, says when nothing did,
// and names the inhibit rules a change adds (an alert made critical silences its family's
// tickets; in the order Alertmanager reads them) and removes (sorted), one a line after the
// count.
func TestGenerateSaysWhatChanged(t *testing.T) {
	dir := t.TempDir()
	gen := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := run(t, append([]string{"generate", "-o", dir}, args...)...)
		if code != ExitOK {
			t.Fatalf("generate %v: exit %d %s", args, code, stderr)
		}
		return stdout
	}
	// Every file is new on the first run, and each later run writes as many.
	first := gen()
	files, _, _ := strings.Cut(strings.TrimPrefix(first, "wrote "), " ")
	if !strings.Contains(first, ": 0 changed, "+files+" new, 0 removed") {
		t.Errorf("first run: %s", first)
	}
	if out := gen(); !strings.Contains(out, "were already up to date: nothing changed") {
		t.Errorf("second run: %s", out)
	}
	catalog := func(override string) string {
		config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
		if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') "+override), 0o644); err != nil {
			t.Fatal(err)
		}
		return config
	}
	critical := catalog(`{ alerts+: { GPUThermalThrottling+: { severity: 'critical' } } }`)
	withoutTwo := catalog(`{ alertmanager+: { inhibit+: { gpuGone: '', exporterDown: '' } } }`)
	thermal := "inhibit rule thermal-page-over-ticket added: while GPUThermalThrottling fires, GPUHotterThanFleetPeers, GPUMemoryTemperatureHigh, GPUTemperatureHigh on the same cluster, Hostname, UUID are silenced"
	// Each step's lines after the count: whole, or up to the colon of a long description.
	for _, step := range []struct {
		name string
		args []string
		want []string
	}{
		{"critical alert", []string{"-c", critical}, []string{thermal}},
		{"back to the default", nil, []string{"inhibit rule thermal-page-over-ticket removed"}},
		{"two sources unset", []string{"-c", withoutTwo}, []string{"inhibit rule exporter-down removed", "inhibit rule gpu-gone removed"}},
		{"two sources back", nil, []string{"inhibit rule gpu-gone added", "inhibit rule exporter-down added"}},
	} {
		lines := strings.Split(strings.TrimSuffix(gen(step.args...), "\n"), "\n")
		if len(lines) != 1+len(step.want) || !strings.HasPrefix(lines[0], "wrote "+files+" files to ") {
			t.Errorf("%s: %q, want the count and %d inhibit rules", step.name, lines, len(step.want))
			continue
		}
		for i, want := range step.want {
			if got := lines[1+i]; got != want && !strings.HasPrefix(got, want+": while ") {
				t.Errorf("%s: line %d is %q, want %q", step.name, 2+i, got, want)
			}
		}
	}
}

// TestGenerateSaysWhichRecordsWereRenamed: regenerating an output written before gpuobs
// renamed records (lint.renamed) names each former record and the name it has now, once; a
// run that finds the new names already there, or a catalog that lists no rename, says nothing
// of them.
func TestGenerateSaysWhichRecordsWereRenamed(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, "generate", "-o", dir); code != ExitOK {
		t.Fatalf("generate: exit %d %s", code, stderr)
	}
	// The output as gpuobs wrote it before the goodput record read every engine.
	const former, now = "model:vllm_goodput_tokens:rate5m", "model:inference_goodput_tokens:rate5m"
	older := func() {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(output.RecordingRules))
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte("record: "+now+"\n")) {
			t.Fatalf("%s lacks the record %s: %v", path, now, err)
		}
		if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte("record: "+now+"\n"), []byte("record: "+former+"\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	older()
	_, stdout, stderr := run(t, "generate", "-o", dir)
	if !strings.Contains(stdout, "\nrecording rules renamed (lint.renamed), former → now: move what reads a former name outside this output") || strings.Count(stdout, "\n  "+former+" → "+now+"\n") != 1 || strings.Count(stdout, "\n  ") != 1 {
		t.Errorf("generate over the older output says, of renamed records:\n%s%s", stdout, stderr)
	}
	if _, stdout, _ := run(t, "generate", "-o", dir); strings.Contains(stdout, "renamed") {
		t.Errorf("a run over the renamed output repeats it:\n%s", stdout)
	}
	older()
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') + { lint+: { renamed: {} } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := run(t, "generate", "-c", config, "-o", dir); strings.Contains(stdout, "renamed") {
		t.Errorf("a catalog without renames names one:\n%s", stdout)
	}
}

// TestProjectionSaysItsAssumption: on the embedded catalog, a budget finding says next to its
// number that the fleet is the default catalog's worst case, with its figures.
func TestProjectionSaysItsAssumption(t *testing.T) {
	wide := filepath.Join(t.TempDir(), "wide.yaml")
	if err := os.WriteFile(wide, []byte("groups:\n  - name: g\n    rules:\n      - record: cluster:dcgm_gpu_temp:max\n        expr: max by (cluster, UUID) (DCGM_FI_DEV_GPU_TEMP)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stdout, stderr := run(t, "lint", wide)
	if !strings.Contains(stdout, "cardinality/budget") || !strings.Contains(stdout, "a worst case of") || !strings.Contains(stdout, "MIG instances; set fleet in your gpuobs.jsonnet") {
		t.Errorf("the budget finding does not say its assumption:\n%s%s", stdout, stderr)
	}
}

// TestLintReadsTheRepositorysCounterFile: a monitoring repository that ships its exporter's
// counter file beside its dashboards says with it what the exporter collects: a dashboard on a
// field outside dcgm-exporter's default set is not "not collected" when that file lists it,
// and is when the repository ships none (or one without it). A .csv that is no counter file
// is not read as one.
func TestLintReadsTheRepositorysCounterFile(t *testing.T) {
	repo := t.TempDir()
	dashboard := `{"title": "GPU errors", "tags": ["L3"], "panels": [{"title": "Retired pages", "targets": [{"expr": "max(DCGM_FI_DEV_RETIRED_DBE)"}]}]}`
	testutil.WriteTree(t, repo, map[string]string{"dashboards/errors.json": dashboard, "data/gpus.csv": "host,gpus\nnode-1,8\n",
		// A test's fixture counter file is no deployed one.
		"tests/testdata/counters.csv": "DCGM_FI_DEV_RETIRED_DBE, counter, Retired pages.\n"})
	if code, stdout, _ := run(t, "lint", "--fail-on", "warning", repo); code != ExitFindings || !strings.Contains(stdout, "DCGM_FI_DEV_RETIRED_DBE is not collected") {
		t.Errorf("no counter file: exit %d\n%s", code, stdout)
	}
	testutil.WriteTree(t, repo, map[string]string{"dcgm/counters.csv": "# DCGM FIELD, Prometheus metric type, help message\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nDCGM_FI_DEV_RETIRED_DBE, counter, Retired pages.\n"})
	code, stdout, stderr := run(t, "lint", "--fail-on", "warning", repo)
	if code != ExitOK || !strings.Contains(stderr, filepath.Join("dcgm", "counters.csv")) {
		t.Errorf("the repository's counter file: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestGenerateSaysWhatAnEngineCannotShow: a fleet serving with vLLM and Triton (no latency
// histogram the SLOs can read) generates, and generate says Triton is left out of the latency
// rules; vLLM, which shows every quantity, gets no note.
func TestGenerateSaysWhatAnEngineCannotShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(path, []byte("(import 'gpuobs.libsonnet') { inference+:: { engines: ['vllm', 'triton'] } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "-c", path, "-o", t.TempDir())
	if code != ExitOK {
		t.Fatalf("generate: exit %d %s", code, stderr)
	}
	if !strings.Contains(stderr, "note: Triton Inference Server (triton) shows no time to first token, inter-token latency, end-to-end latency") {
		t.Errorf("no note on Triton's missing latency histograms:\n%s", stderr)
	}
	if strings.Contains(stderr, "(vllm) shows no") {
		t.Errorf("a note on vLLM, which shows every quantity:\n%s", stderr)
	}
}

// TestGenerateNamesWhatATritonFleetDrops: a fleet serving with Triton alone generates, and
// generate's note names every inference alert and SLO of the vLLM catalog that its output
// lacks (the KV-cache, throughput and latency rules), and none it keeps.
func TestGenerateNamesWhatATritonFleetDrops(t *testing.T) {
	alertsOf := func(config string) (map[string]bool, string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		code, _, stderr := run(t, "generate", "-c", path, "-o", out)
		if code != ExitOK {
			t.Fatalf("generate: exit %d %s", code, stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, "rules", "alerts.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^\s+- alert: (\S+)$`).FindAllStringSubmatch(string(data), -1) {
			if strings.Contains(m[1], "Inference") {
				names[m[1]] = true
			}
		}
		return names, stderr
	}
	vllm, _ := alertsOf("(import 'gpuobs.libsonnet')\n")
	triton, stderr := alertsOf("(import 'gpuobs.libsonnet') { inference+:: { engines: ['triton'] } }\n")
	_, note, found := strings.Cut(stderr, "note: Triton Inference Server (triton) shows no")
	if !found {
		t.Fatalf("no note on Triton:\n%s", stderr)
	}
	note, _, _ = strings.Cut(note, "\n")
	_, leftOut, _ := strings.Cut(note, "it is left out of ")
	named := func(alert string) bool {
		for _, n := range strings.Split(strings.TrimSuffix(strings.Split(leftOut, " and of the panels")[0], ","), ", ") {
			if n != "" && strings.Contains(alert, n) {
				return true
			}
		}
		return false
	}
	// vLLM's own check (section vllm) goes with vLLM, not for anything Triton lacks.
	delete(vllm, "GPUInferenceMetricMissing")
	for alert := range vllm {
		if !triton[alert] && !named(alert) {
			t.Errorf("%s is dropped for Triton, and the note does not say so: %s", alert, note)
		}
		if triton[alert] && named(alert) {
			t.Errorf("%s is kept for Triton, and the note says it is left out: %s", alert, note)
		}
	}
	if !strings.Contains(note, "KV-cache usage") || !strings.Contains(note, "GPUInferenceKVCachePressure") {
		t.Errorf("the note does not name the KV-cache alert Triton cannot feed: %s", note)
	}
}

// TestGenerateLoadsEachOutputOnce: generate loads its rule files and Alertmanager
// configurations with Prometheus' and Alertmanager's loaders, and remembers, in the cache
// directory's checked/, the bytes that loaded: a second run of the same catalog loads nothing
// again; another catalog's output is loaded, and remembered beside.
func TestGenerateLoadsEachOutputOnce(t *testing.T) {
	cache := t.TempDir()
	passes := func() []string {
		entries, _ := os.ReadDir(filepath.Join(cache, "checked"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	generateWith := func(args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Run(append([]string{"generate", "-o", t.TempDir()}, args...), Options{Stdout: &stdout, Stderr: &stderr, CatalogCache: cache}); code != ExitOK {
			t.Fatalf("generate exit %d: %s", code, stderr.String())
		}
	}
	generateWith()
	first := passes()
	// The recording and alert rule files, the configuration and the fragment merged.
	if len(first) != 4 {
		t.Fatalf("%d passes kept after the first run, want 4: %v", len(first), first)
	}
	generateWith()
	if again := passes(); !slices.Equal(again, first) {
		t.Errorf("the second run kept %v, want the first run's %v", again, first)
	}
	generateWith("-c", "../testutil/plantest/testdata/small.jsonnet")
	if other := passes(); len(other) <= len(first) {
		t.Errorf("another catalog's output kept no pass of its own: %v", other)
	}
}

// TestLintPrometheusVersion: --prometheus-version holds hand-written rules to the release the
// team's servers run: first_over_time (3.7) is an error on 3.5 and passes on 3.16, the
// catalog's default; a version gpuobs does not know is a usage error.
func TestLintPrometheusVersion(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(rules, []byte("groups:\n  - name: mine\n    rules:\n      - record: cluster:up:first\n        expr: sum by (cluster) (first_over_time(up[1h]))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "lint", "--prometheus-version", "3.5", rules)
	if code != ExitFindings || !strings.Contains(stdout, "function first_over_time came in Prometheus 3.7, and the target (prometheus.version) is 3.5") || !strings.Contains(stdout, "[promql/feature]") {
		t.Errorf("3.5: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "lint", rules); code != ExitOK || strings.Contains(stdout, "promql/feature") {
		t.Errorf("the catalog's 3.16: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "lint", "--prometheus-version", "2.53", rules); code != ExitUsage || !strings.Contains(stderr, "outside the releases gpuobs knows") {
		t.Errorf("2.53: exit %d\n%s", code, stderr)
	}
}
