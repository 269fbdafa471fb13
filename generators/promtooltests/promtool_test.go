package promtooltests_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpuobs/gpuobs/generators"
	. "github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
	"github.com/gpuobs/gpuobs/internal/testutil/promtoolsplit"
)

// promtoolTest runs promtool test rules on a generated test file, each test group on the
// rules it reads (promtoolsplit): the same checks as on the whole file, without evaluating
// every rule for every group. Given names, only the tests of those alerts and queries run;
// flags go to promtool. A run on the same bytes as an earlier one replays it (RunTool).
func promtoolTest(t *testing.T, dir, file string, names []string, flags ...string) (string, error) {
	t.Helper()
	files, err := promtoolsplit.Split(filepath.Join(dir, file), names...)
	if err != nil {
		t.Fatal(err)
	}
	// A quarter of the garbage collection: a third less CPU on the alert tests, at 300 MB.
	return testutil.RunTool(t, "promtool", dir, []string{"GOGC=400"}, append(append([]string{"test", "rules"}, flags...), files...)...)
}

// checkRules runs promtool check rules on every rule file generated into dir: the split runs
// load only the rules each test group reads, so this is what loads every rule of a catalog's
// files as Prometheus would (a bad template, a function behind a flag).
func checkRules(t *testing.T, dir string) (string, error) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "rules", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	layered, err := filepath.Glob(filepath.Join(dir, "rules", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if files = append(files, layered...); len(files) == 0 {
		t.Fatalf("no rule files under %s", dir)
	}
	return testutil.RunTool(t, "promtool", dir, nil, append([]string{"check", "rules"}, files...)...)
}

// generated holds, per catalog, its generated files: the mutation runs write the same
// catalog's output once each, and derive it once.
var generated sync.Map // config → func() (generatedTree, error)

// generateInto writes the full output of a catalog into a temporary directory.
func generateInto(t *testing.T, config string) string {
	t.Helper()
	run, _ := generated.LoadOrStore(config, sync.OnceValues(func() (generatedTree, error) {
		p, err := plantest.Load(config)
		if err != nil {
			return generatedTree{}, err
		}
		files, managed, err := generators.Run(p, generators.Options{})
		return generatedTree{files, managed}, err
	}))
	tree, err := run.(func() (generatedTree, error))()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := emit.Write(dir, tree.files, tree.managed); err != nil {
		t.Fatal(err)
	}
	return dir
}

// generatedTree is a catalog's generated files and the paths gpuobs manages.
type generatedTree struct {
	files   []emit.File
	managed []string
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedTestsPassForEveryExporterProfile runs the generated promtool tests, on series
// shaped for each profile, for dcgm-exporter 4.8.3 (hostname), 4.9 (hostname, the new driver
// label and bitmask name, other units), an exporter with renamed fields, and 4.8.3 scraped
// with honorLabels: false and other thresholds, GPUs time-sliced and copied per pod by the
// exporter's virtual-GPU mode, servers that keep native histograms, GPUs through DRA, Grace
// Blackwell racks, Slurm fleets, the small fixture catalog,
// and the embedded catalog sharded
// (shard and global rule files evaluated together; 4.8.2 is the embedded catalog, which make
// test runs).
func TestGeneratedTestsPassForEveryExporterProfile(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	every := []string{output.AlertTests, output.RecordingTests, output.RecordsTests}
	for _, c := range []struct {
		config string
		files  []string
	}{
		{"testdata/exporter-4.8.3.jsonnet", every},
		// 4.9 on Grace Blackwell racks (the NVLink fabric, C2C and NVLink 5 alerts beside
		// every 4.9 rule): a superset of exporter-4.9.jsonnet, tested in its place.
		{"testdata/gb200.jsonnet", every},
		{"testdata/exporter-renamed.jsonnet", every},
		{"testdata/virtual-gpus.jsonnet", every},
		{"testdata/native-histograms.jsonnet", every},
		// GPUs through DRA (on 4.9), and a team's catalog on a fleet of both kinds of nodes.
		{"testdata/dra.jsonnet", every},
		{"../../internal/testutil/plantest/testdata/mixed.jsonnet", every},
		// A team's own catalog (every label and team renamed, some sections off, an alert
		// of its own), with Grace Blackwell racks beside its HGX nodes (a superset of
		// adopter.jsonnet, tested in its place), and a training fleet with every section off.
		{"../../internal/testutil/plantest/testdata/adopter-gb200.jsonnet", every},
		{"../../internal/testutil/plantest/testdata/training.jsonnet", every},
		{"../../internal/catalog/testdata/override.jsonnet", every},
		{"../../internal/testutil/plantest/testdata/small.jsonnet", every},
		// Slurm on bare metal (no kube-state-metrics: jobs from hpc_job, Slurm's own counts,
		// SckyzO's node states), and a lab's Slurm catalog (labels and teams renamed, fully
		// qualified Slurm node names, soperator's node states and job owners, sections off).
		{"testdata/slurm.jsonnet", every},
		{"testdata/slurm-adopter.jsonnet", every},
		// The same rules as the embedded catalog's, split in two layers: the alert scenarios
		// exercise both layers' files and the shard label's templates; the recording values
		// are the embedded catalog's, which make test checks.
		{"../../internal/testutil/plantest/testdata/sharded.jsonnet", []string{output.AlertTests}},
		// Every job a documented install gives the exporter's targets: the scenarios of an
		// exporter under another job pick one other than the catalog's.
		{plantest.Catalog(t, "(import 'gpuobs.libsonnet') { exporter+: { job: 'nvidia-dcgm-exporter' } }\n"), []string{output.AlertTests}},
		{plantest.Catalog(t, "(import 'gpuobs.libsonnet') { exporter+: { managed: 'gke' } }\n"), []string{output.AlertTests}},
	} {
		name := filepath.Base(c.config)
		if name == "gpuobs.jsonnet" {
			name = filepath.Base(filepath.Dir(c.config))
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := generateInto(t, c.config)
			if out, err := checkRules(t, dir); err != nil {
				t.Errorf("promtool check rules: %v\n%s", err, out)
			}
			for _, f := range c.files {
				if out, err := promtoolTest(t, dir, f, nil); err != nil {
					t.Errorf("promtool test rules %s: %v\n%s", f, err, out)
				}
			}
		})
	}
}

// TestEveryEngineBurnsItsSLOs: on a fleet serving with vLLM, SGLang, Dynamo's frontend,
// trtllm-serve and Triton side by side, each latency SLO's alerts and the request-error
// SLO's fire on a burn and stay quiet within budget on series shaped as each engine writes
// them (its name, model label and ladder; its request counters, refusing as many requests as
// it admits where it tells refusals apart), the shedding, queue and KV-cache alerts fire per
// engine that shows what they read, and the SLO records pass their cases; on a fleet without
// vLLM (SGLang's scenarios then the SLOs' own); and on a team's catalog (labels, teams and
// its model label renamed, sections off) serving with vLLM, SGLang and Dynamo.
func TestEveryEngineBurnsItsSLOs(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	var names []string
	for _, slo := range []string{"InferenceTTFT", "InferenceTPOT", "InferenceLatency", "InferenceErrors"} {
		names = append(names, "SLO"+slo+"FastBurn", "SLO"+slo+"SlowBurn")
	}
	names = append(names, "GPUInferenceRequestsShed", "GPUInferenceQueueGrowing", "GPUInferenceKVCachePressure")
	for _, c := range []struct {
		config string
		series []string // what the scenarios must feed: each engine's series under its names
	}{
		{"testdata/engines.jsonnet", []string{
			`vllm:time_to_first_token_seconds_bucket{`,
			`sglang:time_to_first_token_seconds_bucket{`,
			`sglang:inter_token_latency_seconds_bucket{`,
			`dynamo_frontend_time_to_first_token_seconds_bucket{`,
			`dynamo_frontend_request_duration_seconds_bucket{`,
			`trtllm_time_per_output_token_seconds_bucket{`,
			`le=\"1\", model=\"llama-3-8b\"`,
			`sglang:http_responses_total{`,
			`dynamo_frontend_requests_total{`,
			`trtllm_request_error_total{`,
			`nv_inference_request_failure{`,
			`sglang:num_queue_reqs{`,
			`sglang:num_retracted_requests_total{`,
			`trtllm_num_paused_requests{`,
			`dynamo_frontend_queued_requests{`,
			`nv_inference_pending_request_count{`,
			`pod=\"llm-dynamoWorker-0\"`,
		}},
		{"testdata/engines-without-vllm.jsonnet", []string{
			`sglang:time_to_first_token_seconds_bucket{`,
			`sglang:http_responses_total{`,
			`sglang:num_queue_reqs{`,
			`trtllm_kv_cache_utilization{`,
			`nv_inference_request_success{`,
		}},
		{"../../internal/testutil/plantest/testdata/adopter-engines.jsonnet", []string{
			`served_model=\"llama-3-8b\"`,
			`sglang:time_to_first_token_seconds_bucket{`,
			`dynamo_frontend_time_to_first_token_seconds_bucket{`,
			`model=\"llama-3-8b\"`,
			`model_name=\"llama-3-8b\"`,
			`error_type=\"overload\"`,
			`status_code=\"503\"`,
			`pod=\"llm-dynamoWorker-0\"`,
		}},
	} {
		t.Run(filepath.Base(c.config), func(t *testing.T) {
			t.Parallel()
			dir := generateInto(t, c.config)
			tests, err := os.ReadFile(filepath.Join(dir, output.AlertTests))
			if err != nil {
				t.Fatal(err)
			}
			for _, series := range c.series {
				if !strings.Contains(string(tests), series) {
					t.Errorf("no scenario feeds %s", series)
				}
			}
			if out, err := promtoolTest(t, dir, output.AlertTests, names); err != nil {
				t.Errorf("promtool test rules %s: %v\n%s", output.AlertTests, err, out)
			}
			if out, err := promtoolTest(t, dir, output.RecordsTests, nil); err != nil {
				t.Errorf("promtool test rules %s: %v\n%s", output.RecordsTests, err, out)
			}
		})
	}
}

// TestGPUAvailabilityHoldsAtItsObjective: the GPU availability SLO's alerts fire on a burn, stay
// quiet within budget and between their tiers, and its records pass their cases at objectives
// from loose to strict, on the embedded catalog and on a team's (labels and teams renamed,
// sections off). Its scenarios show a share of GPUs missing in whole GPUs: at 99 %, one of 25 is
// 4 %, which a stricter objective's tiers cannot tell apart, so they take more GPUs there.
// (A Slurm lab's catalog, testdata/slurm-adopter.jsonnet, runs at 99.9 %.)
func TestGPUAvailabilityHoldsAtItsObjective(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	alerts := []string{"SLOGPUAvailabilityFastBurn", "SLOGPUAvailabilitySlowBurn"}
	records := []string{
		`round(slo:error_budget:remaining{slo="GPUAvailability"}, 0.001)`,
		`round(slo:error_budget:burn_rate{slo="GPUAvailability"}, 0.001)`,
	}
	for _, c := range []struct{ catalog, objective string }{
		{"gpuobs.libsonnet", "0.95"},
		{"gpuobs.libsonnet", "0.995"},
		{"adopter.jsonnet", "0.9975"},
		{"gpuobs.libsonnet", "0.999"},
	} {
		t.Run(c.catalog+"@"+c.objective, func(t *testing.T) {
			t.Parallel()
			dir := generateInto(t, plantest.Catalog(t, "(import '"+c.catalog+"') { slos+: { GPUAvailability+: { objective: "+c.objective+" } } }\n"))
			if out, err := promtoolTest(t, dir, output.AlertTests, alerts); err != nil {
				t.Errorf("promtool test rules %s: %v\n%s", output.AlertTests, err, out)
			}
			if out, err := promtoolTest(t, dir, output.RecordsTests, records); err != nil {
				t.Errorf("promtool test rules %s: %v\n%s", output.RecordsTests, err, out)
			}
		})
	}
}

// TestGPUAvailabilityRefusesWhatItsTestsCannotShow: an objective whose tiers a test tells apart
// only on more GPUs than a test holds (the promtool test generator's bound), and tiers too close
// together for any count of GPUs, stop generation with a message that names the value by its
// catalog path, the SLO's own name for a copy of it, and what to change, without the library's
// stack trace.
func TestGPUAvailabilityRefusesWhatItsTestsCannotShow(t *testing.T) {
	t.Parallel()
	tooStrict := func(slo string) string {
		return fmt.Sprintf("slos.%s.objective: 0.9999 is too strict for its generated tests:\nto tell its tiers apart, one takes 2222 GPUs, and a test holds at most %d. Loosen the objective.", slo, MaxScenarioGPUs)
	}
	for _, c := range []struct{ slos, want string }{
		{"GPUAvailability+: { objective: 0.9999 }", tooStrict("GPUAvailability")},
		{"GPUAvailabilityEU: $.slos.GPUAvailability { objective: 0.9999 }", tooStrict("GPUAvailabilityEU")},
		{
			"GPUAvailability+: { tiers: [{ alert: 'FastBurn', factor: 3.01, long: '1h', short: '5m' }, { alert: 'SlowBurn', factor: 3, long: '1d', short: '2h' }] }",
			"slos.GPUAvailability.tiers: too close together for a generated test to tell them apart\n(factors 3.01, 3): move their factors further apart.",
		},
	} {
		_, err := plantest.Load(plantest.Catalog(t, "(import 'adopter.jsonnet') { slos+: { "+c.slos+" } }\n"))
		if err == nil || err.Error() != c.want {
			t.Errorf("with %s, want the error %q alone (no trace into the library), got %v", c.slos, c.want, err)
		}
	}
}

// TestARuleNoTestReadsIsStillLoaded: a rule that no test group reads is left out of the split
// runs, so a broken one passes them; promtool check rules, which the profile runs also call,
// loads it and fails. On the small catalog, with a rule whose template does not parse.
func TestARuleNoTestReadsIsStillLoaded(t *testing.T) {
	t.Parallel()
	dir := generateInto(t, "../../internal/testutil/plantest/testdata/small.jsonnet")
	f, err := os.OpenFile(filepath.Join(dir, "rules", "alerts.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	broken := "  - name: planted\n    rules:\n      - alert: NobodyTestsMe\n        expr: vector(1)\n        annotations:\n          summary: '{{ $labels.x '\n"
	if _, err := f.WriteString(broken); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := promtoolTest(t, dir, output.AlertTests, nil); err != nil {
		t.Fatalf("the split runs load the broken rule after all (this test's premise is gone):\n%s", out)
	}
	if out, err := checkRules(t, dir); err == nil || !strings.Contains(out, "NobodyTestsMe") {
		t.Errorf("promtool check rules passed the broken rule:\n%s", out)
	}
}

// trainingCatalog is a training fleet's, with its InfiniBand ports and NCCL Inspector.
const trainingCatalog = "../../internal/testutil/plantest/testdata/training.jsonnet"

// kvCacheReads is the generated KV-cache alert's text from its first read of the KV-cache
// gauge (first) to its second (second), each awake engines' only.
func kvCacheReads(first, second string) string {
	return "avg_over_time(" + first + "[10m])\n" +
		"                      unless on (cluster, namespace, pod, engine)\n" +
		"                        (max by (cluster, namespace, pod, engine) (vllm:engine_sleep_state{sleep_state=\"awake\"}) == 0)\n" +
		"                    )\n" +
		"                  )\n" +
		"                or\n" +
		"                  max by (cluster, namespace, pod, model_name) (\n" +
		"                    (\n" +
		"                        avg_over_time(" + second + "[10m])"
}

// TestGeneratedTestsCatchBrokenRules proves the generated tests can fail: each mutation is a
// mistake the rules must not make, and promtool must reject it. (make test runs the same
// tests on the unmutated checked-in output.)
func TestGeneratedTestsCatchBrokenRules(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, c := range []struct {
		name, file, testFile, old, new, wantFailure string
		config                                      string // the catalog; the embedded one when empty
	}{
		// Slurm: a GPU of two jobs counted once, the jobs' sums, and each Slurm alert.
		{
			name: "a GPU of two jobs counted twice", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/slurm.jsonnet",
			old:         "  / on (cluster, hostname, gpu, UUID) group_left ()\n",
			new:         "  * on (cluster, hostname, gpu, UUID) group_left ()\n",
			wantFailure: `expr: "gpu_job:slurm_gpu:share{hpc_job=\"4101\"}"`,
		},
		{
			name: "jobs' GPUs counted by their series", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/slurm.jsonnet",
			old:         "expr: sum by (cluster) (job:slurm_gpus:sum)",
			new:         "expr: count by (cluster) (gpu_pod:dcgm_gpu_info:group{hpc_job!=\"\"})",
			wantFailure: `expr: "cluster:slurm_job_gpus:sum"`,
		},
		{
			name: "users' GPUs by account", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/slurm.jsonnet",
			old:         "sum by (cluster, username) (slurm_user_jobs_gpus_alloc{job=\"slurm\"})",
			new:         "sum by (cluster, username) (slurm_account_jobs_gpus_alloc{job=\"slurm\"})",
			wantFailure: "user:slurm_gpu_hours:sum1d{username",
		},
		{
			name: "a busy job called idle", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         "expr: job:dcgm_gr_engine_active:avg < 0.05",
			new:         "expr: job:dcgm_gr_engine_active:avg < 0.9",
			wantFailure: "alertname: GPUSlurmJobIdle,",
		},
		{
			name: "a node without mapping files looks mapped", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         "or on (cluster, hostname)\n                    0\n",
			new:         "and on (cluster, hostname)\n                    0\n",
			wantFailure: "alertname: GPUSlurmJobMappingBroken,",
		},
		{
			name: "a job on another GPU than its file names goes unseen", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         `(DCGM_FI_PROF_GR_ENGINE_ACTIVE{hpc_job=""} > 0.5)`,
			new:         `(DCGM_FI_PROF_GR_ENGINE_ACTIVE{hpc_job!=""} > 0.5)`,
			wantFailure: "alertname: GPUSlurmJobOnWrongGPU,",
		},
		{
			name: "a node's lost GPU goes unseen", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         "(gpu_pod:dcgm_health:group))\n            >\n              0\n",
			new:         "(gpu_pod:dcgm_health:group))\n            >\n              1\n",
			wantFailure: "alertname: GPUSlurmNodeGPUsMissing,",
		},
		{
			name: "a drained node in service", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         "expr: |-\n          max by (cluster, hostname) (\n            label_replace(\n              slurm_node_status{job=\"slurm-exporter\",status=~\"(drain|",
			new:         "expr: |-\n          max by (cluster, hostname) (\n            label_replace(\n              slurm_node_status{job=\"slurm-exporter\",status=~\"(",
			wantFailure: "alertname: GPUNodeDrained,",
		},
		// Cost on Slurm: a job's GPUs priced by their SKU, users and accounts at their cluster's
		// mean price of a held GPU.
		{
			name: "a job's used GPUs billed as idle", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/slurm.jsonnet",
			old:         "(job:slurm_gpus:sum - job:slurm_gpus_used:sum)",
			new:         "(job:slurm_gpus:sum)",
			wantFailure: `expr: "round(job:gpu_idle_cost_dollars_per_hour:sum, 0.001)"`,
		},
		{
			name: "every account billed the cluster's cost", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/slurm.jsonnet",
			old:         "(cluster:gpu_cost_dollars_per_hour:sum / (cluster:slurm_gpus_alloc:sum > 0))",
			new:         "(cluster:gpu_cost_dollars_per_hour:sum)",
			wantFailure: `account:gpu_cost_dollars_per_hour:sum{account=`,
		},
		{
			name: "a pod on the host network unread", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "                    ==\n                      1\n                  ),\n                \"node\",",
			new:         "                    ==\n                      0\n                  ),\n                \"node\",",
			wantFailure: "gpuncclstragglerrank-one-rank-last-of-a-pod-on-the-host-netwo",
		},
		{
			name: "a server without its switched metrics unseen", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "unless on (cluster, namespace, pod)\n                group by (cluster, namespace, pod) (\n                    trtllm_num_requests_waiting",
			new:         "and on (cluster, namespace, pod)\n                group by (cluster, namespace, pod) (\n                    trtllm_num_requests_waiting",
			wantFailure: "alertname: GPUInferenceMetricsSwitchedOff,",
		},
		// SGLang's prefill-decode layout: the prefill server sees every request too.
		{
			name: "prefill servers' responses counted", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines-without-vllm.jsonnet",
			old:         "status_code!=\"503\"}[5m]\n                          )\n                        unless on (cluster, namespace, pod)\n                          group by (cluster, namespace, pod) (sglang:num_queue_reqs{engine_type=\"prefill\"})",
			new:         "status_code!=\"503\"}[5m]\n                          )\n                        unless on (cluster, namespace, pod)\n                          group by (cluster, namespace, pod) (sglang:num_queue_reqs{engine_type=\"none\"})",
			wantFailure: "alertname: SLOInferenceErrorsFastBurn,",
		},
		{
			name: "prefill servers' end to end counted", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines-without-vllm.jsonnet",
			old:         "rate(sglang:e2e_request_latency_seconds_count[5m])\n                  unless on (cluster, namespace, pod)\n                    group by (cluster, namespace, pod) (sglang:num_queue_reqs{engine_type=\"prefill\"})",
			new:         "rate(sglang:e2e_request_latency_seconds_count[5m])\n                  unless on (cluster, namespace, pod)\n                    group by (cluster, namespace, pod) (sglang:num_queue_reqs{engine_type=\"none\"})",
			wantFailure: "alertname: SLOInferenceLatencyFastBurn,",
		},
		{
			name: "a Triton ensemble's own failures read", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         `rate(nv_inference_request_failure{model!~"ensemble",reason=~"BACKEND|OTHER"}[5m])`,
			new:         `rate(nv_inference_request_failure{reason=~"BACKEND|OTHER"}[5m])`,
			wantFailure: "alertname: SLOInferenceErrorsFastBurn,",
		},
		// NCCL Inspector on Slurm: ranks keyed by the job the inspector names, read while every
		// GPU the job holds on their host has its file written.
		{
			name: "a host's stopped rank read as live", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         "gpu_pod:dcgm_gpu_info:group{hpc_job!=\"\"}\n              unless on (cluster, UUID)",
			new:         "gpu_pod:dcgm_gpu_info:group{hpc_job=\"none\"}\n              unless on (cluster, UUID)",
			wantFailure: "alertname: GPUNcclStragglerRank,",
		},
		{
			name: "writing hosts not keyed by job", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         "group by (cluster, hostname, hpc_job) (\n",
			new:         "group by (cluster, hostname) (\n",
			wantFailure: "alertname: GPUNcclCollectiveStarved,",
		},
		{
			name: "free GPUs ticket with no job waiting", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/slurm.jsonnet",
			old:         `sum by (cluster, partition) (slurm_partition_jobs_pending{job="slurm"}) > 0`,
			new:         `sum by (cluster, partition) (slurm_partition_jobs_pending{job="slurm"}) >= 0`,
			wantFailure: "alertname: GPUSlurmJobsPendingWhileGPUsIdle,",
		},

		{
			name: "MIG instances summed", file: "rules/recording.yaml", testFile: output.RecordingTests,
			old:         "max by (cluster, Hostname, gpu, UUID, modelName) (DCGM_FI_DEV_POWER_USAGE)",
			new:         "sum by (cluster, Hostname, gpu, UUID, modelName) (DCGM_FI_DEV_POWER_USAGE)",
			wantFailure: `expr: "node:dcgm_power_usage:sum"`,
		},
		{
			name: "average of averages", file: "rules/recording.yaml", testFile: output.RecordingTests,
			old:         "expr: cluster:dcgm_gpu_util:sum / cluster:dcgm_gpu_util:count",
			new:         "expr: avg by (cluster) (node:dcgm_gpu_util:avg)",
			wantFailure: `expr: "cluster:dcgm_gpu_util:avg"`,
		},
		{
			name: "idle bit counted as throttling", file: "rules/recording.yaml", testFile: output.RecordingTests,
			old:         "floor(DCGM_FI_DEV_CLOCK_THROTTLE_REASONS / 4) % 2",
			new:         "floor(DCGM_FI_DEV_CLOCK_THROTTLE_REASONS / 1) % 2",
			wantFailure: `expr: "gpu:dcgm_clock_throttle_power:max"`,
		},
		{
			name: "XID held forever pages", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         "unless on (cluster, Hostname, gpu, UUID, modelName, err_code)",
			new:         "or on (cluster, Hostname, gpu, UUID, modelName, err_code)",
			wantFailure: "alertname: GPUFellOffBus",
		},
		{
			name: "unclassified XIDs include the classified ones", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         `gpu_pod:dcgm_xid_errors:new10m{xid!~"`,
			new:         `gpu_pod:dcgm_xid_errors:new10m{xid=~".+|`,
			wantFailure: "alertname: GPUXidUnclassified",
		},
		{
			name: "counter increments on a new series missed", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "increase(gpu:dcgm_ecc_dbe_vol_total:max[10m])",
			new:         "max by (cluster, Hostname, gpu, UUID) (increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[10m]))",
			wantFailure: "alertname: GPUEccDoubleBit",
		},
		{
			name: "a node deleted by the autoscaler alerts", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "group by (cluster, Hostname) (gpu_pod:dcgm_gpu_info:group)",
			new:         "group by (cluster, Hostname) (present_over_time(gpu_pod:dcgm_gpu_info:group[1h]))",
			wantFailure: "alertname: GPUSeriesMissing",
		},
		{
			name: "row-remap failure pages while the flag stays set", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "last_over_time(DCGM_FI_DEV_ROW_REMAP_FAILURE[30m] offset 10m)",
			new:         "last_over_time(DCGM_FI_DEV_ROW_REMAP_FAILURE[30m] offset 3h)",
			wantFailure: "alertname: GPURowRemapFailure,",
		},
		{
			name: "power cap at full clocks tickets", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "                <\n                  0.8 * max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_MAX_SM_CLOCK)\n            )\n",
			new:         "                <\n                  1.1 * max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_MAX_SM_CLOCK)\n            )\n",
			wantFailure: "alertname: GPUPowerThrottling",
		},
		{
			name: "HW slowdown duplicates the thermal ticket", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "                    avg_over_time(gpu:dcgm_clock_throttle_thermal:max[15m]) > 0.5\n                  or",
			new:         "                    avg_over_time(gpu:dcgm_clock_throttle_thermal:max[15m]) > 1.5\n                  or",
			wantFailure: "alertname: GPUHwSlowdown",
		},
		{
			name: "label profile mismatch unnoticed", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         `gpu_pod:dcgm_health:group{Hostname=""}`,
			new:         `gpu_pod:dcgm_health:group{Hostname="-"}`,
			wantFailure: "alertname: DCGMExporterLabelMismatch",
		},
		{
			name: "repeated XID unseen without the per-code count", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         `max_over_time(DCGM_EXP_XID_ERRORS_COUNT{xid=~"[1-9][0-9]*"}[10m])`,
			new:         `max_over_time(DCGM_EXP_XID_ERRORS_COUNT{xid="none"}[10m])`,
			wantFailure: "alertname: GPUFellOffBus",
		},
		{
			name: "a repeated XID unseen by the cumulative count", file: "rules/recording.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "                      >\n                        0\n",
			new:         "                      >\n                        1e9\n",
			wantFailure: "alertname: GPUFellOffBus",
		},
		{
			name: "an XID after an exporter restart unseen by the cumulative count", file: "rules/recording.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "                      <\n                        last_over_time(gpu:dcgm_exp_xid_errors_total:max",
			new:         "                      >\n                        last_over_time(gpu:dcgm_exp_xid_errors_total:max",
			wantFailure: "alertname: GPUFellOffBus",
		},
		{
			name: "the first XID of a code unseen by the cumulative count", file: "rules/recording.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "                    unless\n                      last_over_time(gpu:dcgm_exp_xid_errors_total:max",
			new:         "                    and\n                      last_over_time(gpu:dcgm_exp_xid_errors_total:max",
			wantFailure: "alertname: GPUFellOffBus",
		},
		{
			name: "a drain and reset read as another action", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "gpu:dcgm_gpu_recovery_action:max == 4,",
			new:         "gpu:dcgm_gpu_recovery_action:max == 5,",
			wantFailure: "alertname: GPURecoveryRequired,",
		},
		{
			name: "a pending GPU reset unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "gpu:dcgm_gpu_recovery_action:max == 1,",
			new:         "gpu:dcgm_gpu_recovery_action:max == 9,",
			wantFailure: "alertname: GPURecoveryPending",
		},
		{
			name: "an unknown recovery action unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "gpu:dcgm_gpu_recovery_action:max > 0\n              unless",
			new:         "gpu:dcgm_gpu_recovery_action:max > 0\n              and",
			wantFailure: "alertname: GPURecoveryActionUnknown",
		},
		{
			name: "a DCGM health warning tickets", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/exporter-4.8.3.jsonnet",
			old:         "  )\n          >=\n            20",
			new:         "  )\n          >=\n            10",
			wantFailure: "alertname: GPUHealthCheckFailed",
		},
		{
			name: "a DRA MIG device counted as its whole GPU", file: "rules/recording.yaml", testFile: output.RecordingTests,
			config:      "testdata/dra.jsonnet",
			old:         "*\n                        0.5\n",
			new:         "*\n                        1\n",
			wantFailure: "kube_gpu_requested:sum",
		},
		{
			name: "the MIG devices a DRA node publishes counted as GPUs", file: "rules/recording.yaml", testFile: output.RecordingTests,
			config:      "testdata/dra.jsonnet",
			old:         `"(gpu-[0-9]+).*"`,
			new:         `"(.*)"`,
			wantFailure: "kube_gpu_allocatable:sum",
		},
		{
			name: "an allocated claim read as waiting", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/dra.jsonnet",
			old:         "kube_resourceclaim_status_allocated{job=\"kube-state-metrics\"}\n            )\n          ==\n            0",
			new:         "kube_resourceclaim_status_allocated{job=\"kube-state-metrics\"}\n            )\n          ==\n            1",
			wantFailure: "alertname: GPUResourceClaimUnallocated",
		},
		{
			name: "successful DRA prepares read as failures", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/dra.jsonnet",
			old:         `dra_operations_duration_seconds_count{is_error="true"`,
			new:         `dra_operations_duration_seconds_count{is_error="false"`,
			wantFailure: "alertname: GPUDRAPrepareFailing",
		},
		{
			name: "an unhealthy NVLink fabric unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "(DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY) == 2",
			new:         "(DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY) == 5",
			wantFailure: "alertname: GPUFabricUnhealthy",
		},
		{
			name: "a failed fabric registration unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "(DCGM_FI_DEV_FABRIC_MANAGER_STATUS) == 4",
			new:         "(DCGM_FI_DEV_FABRIC_MANAGER_STATUS) == 5",
			wantFailure: "alertname: GPUFabricUnhealthy",
		},
		{
			name: "a fabric of limited capacity unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "(DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY) == 3",
			new:         "(DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY) == 5",
			wantFailure: "alertname: GPUFabricDegraded",
		},
		{
			name: "a fabric registration stuck in progress unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "(DCGM_FI_DEV_FABRIC_MANAGER_STATUS) == 2",
			new:         "(DCGM_FI_DEV_FABRIC_MANAGER_STATUS) == 5",
			wantFailure: "alertname: GPUFabricNotRegistered",
		},
		{
			name: "a GPU without C2C links read as its link down", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "(DCGM_FI_DEV_C2C_LINK_COUNT) > 0",
			new:         "(DCGM_FI_DEV_C2C_LINK_COUNT) >= 0",
			wantFailure: "alertname: GPUC2CLinkDown",
		},
		{
			name: "C2C replays unseen", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "gpu:dcgm_c2c_link_error_replay:rate5m * 60 > 1",
			new:         "gpu:dcgm_c2c_link_error_intr:rate5m * 60 > 1",
			wantFailure: "alertname: GPUC2CLinkErrors",
		},
		{
			name: "uncorrected NVLink 5 errors held to a tenfold threshold", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "gpu:dcgm_nvlink_count_effective_errors:rate5m * 60 > 1",
			new:         "gpu:dcgm_nvlink_count_effective_errors:rate5m * 60 > 10",
			wantFailure: "alertname: GPUNvlinkEffectiveErrors",
		},
		{
			name: "an NVLink 5 link down unseen when the job dies with it", file: "rules/alerts.yaml", testFile: output.AlertTests,
			config:      "testdata/gb200.jsonnet",
			old:         "increase(gpu:dcgm_nvlink_count_link_recovery_failed_events:max[15m])",
			new:         "increase(DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS[15m])",
			wantFailure: "alertname: GPUNvlinkLinkDown",
		},
		{
			name: "GPU-hours of a partial day averaged over the samples that exist", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "sum_over_time(namespace:gpu_allocated:sum[1d]) / 60",
			new:         "avg_over_time(namespace:gpu_allocated:sum[1d]) * 24",
			wantFailure: `expr: "round(namespace:gpu_hours_allocated:sum1d, 0.001)"`,
		},
		{
			name: "a repaired GPU stays unavailable while the gauge holds its XID", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         `(gpu_pod:dcgm_xid_errors:new10m{xid=~"48|62|64|95|109|119|120|140|143|79"})`,
			new:         `(DCGM_FI_DEV_XID_ERRORS{err_code=~"48|62|64|95|109|119|120|140|143|79"})`,
			wantFailure: `expr: "cluster:gpu_healthy:count"`,
		},
		{
			name: "an unpriced SKU costs nothing, silently", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "namespace:gpu_allocated:sum unless on (modelName) sku:gpu_hourly_cost:dollars",
			new:         "namespace:gpu_allocated:sum and on (modelName) sku:gpu_hourly_cost:dollars",
			wantFailure: `expr: "cluster:gpu_unpriced:sum"`,
		},
		{
			name: "error budget as a mean of 5-minute ratios", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "sum_over_time(slo:sli_bad_events:rate5m{slo=\"InferenceErrors\"}[30d])\n                  /\n                    (sum_over_time(slo:sli_events:rate5m{slo=\"InferenceErrors\"}[30d]) > 0)",
			new:         "avg_over_time(slo:sli_error:ratio_rate5m{slo=\"InferenceErrors\"}[30d])\n                  /\n                    1",
			wantFailure: `expr: "round(slo:error_budget:remaining{slo=\"InferenceErrors\"}, 0.001)"`,
		},
		{
			name: "MIG devices counted as whole GPUs against capacity in slots", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "count by (cluster) (\n                  group by (cluster, Hostname, gpu, UUID, GPU_I_ID) (gpu_pod:dcgm_health:group)",
			new:         "count by (cluster) (\n                  group by (cluster, Hostname, gpu, UUID) (gpu_pod:dcgm_health:group)",
			wantFailure: `expr: "round(cluster:gpu_unavailable:ratio, 0.001)"`,
		},
		{
			name: "MIG devices of the mixed strategy left out of capacity", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         `kube_node_status_capacity{job="kube-state-metrics",resource=~"nvidia_com_gpu|nvidia_com_mig_.+"}`,
			new:         `kube_node_status_capacity{job="kube-state-metrics",resource="nvidia_com_gpu"}`,
			wantFailure: `expr: "round(cluster:gpu_unavailable:ratio, 0.001)"`,
		},
		{
			name: "time-sliced pods each priced the whole GPU", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "group by (cluster, Hostname, gpu, UUID, GPU_I_ID, namespace, pod) (\n                        label_replace(",
			new:         "group by (cluster, Hostname, gpu, UUID, GPU_I_ID) (\n                        label_replace(",
			wantFailure: `expr: "gpu_pod:gpu_allocated:share"`,
		},
		{
			name: "a renamed vLLM metric goes unnoticed", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "group by (cluster, namespace, pod, model_name) (\n                    (vllm:kv_cache_usage_perc or vllm:gpu_cache_usage_perc)\n                  ),",
			new:         "group by (cluster, namespace, pod, model_name) (\n                    (vllm:num_requests_running)\n                  ),",
			wantFailure: "alertname: GPUInferenceMetricMissing",
		},
		{
			name: "stragglers among inference replicas", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         `owner_kind=~"Job|PyTorchJob|TFJob|MPIJob|JobSet|RayJob|XGBoostJob|PaddleJob|LeaderWorkerSet",`,
			new:         "",
			wantFailure: "alertname: GPUTrainingStraggler",
		},
		{
			name: "the straggler is the GPU under its job's median", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "  > on (cluster, namespace, owner_kind, owner_name) group_left ()\n                    (\n                        1.5",
			new:         "  < on (cluster, namespace, owner_kind, owner_name) group_left ()\n                    (\n                        0.5",
			wantFailure: "alertname: GPUTrainingStraggler",
		},
		{
			name: "an idle job has a straggler", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "gpu_pod:dcgm_pipe_tensor_active:avg10m > 0.1\n",
			new:         "gpu_pod:dcgm_pipe_tensor_active:avg10m > 0\n",
			wantFailure: "alertname: GPUTrainingStraggler",
		},
		{
			name: "a job of two ranks has a straggler", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "(gpu_pod:dcgm_pipe_tensor_active:avg10m) >= 4\n",
			new:         "(gpu_pod:dcgm_pipe_tensor_active:avg10m) >= 1\n",
			wantFailure: "alertname: GPUTrainingStraggler",
		},
		{
			name: "a throttled straggler blamed on its work", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "\"cause\",\n                  \"hardware\",",
			new:         "\"cause\",\n                  \"workload\",",
			wantFailure: "alertname: GPUTrainingStraggler",
		},
		{
			name: "a starved job gated on SM activity", file: "rules/alerts.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "gpu_pod:dcgm_pipe_tensor_active:avg10m) > 0.05",
			new:         "gpu_pod:dcgm_pipe_tensor_active:avg10m) > 0.5",
			wantFailure: "alertname: GPUNcclCollectiveStarved",
		},
		{
			name: "a flapping link pages once per flap", file: "rules/alerts.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "  and on (cluster, Hostname)\n            group by (cluster, Hostname) (node_job:training_gpus:count)\n        for: 1m\n        keep_firing_for: 30m\n",
			new:         "  and on (cluster, Hostname)\n            group by (cluster, Hostname) (node_job:training_gpus:count)\n        for: 1m\n",
			wantFailure: "alertname: GPUInfiniBandLinkUnstableUnderJob",
		},
		{
			name: "a saturated wait counter read as a port that waits nothing", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         `node_infiniband_port_transmit_wait_total{job="node-exporter"} >= 4294967295`,
			new:         `node_infiniband_port_transmit_wait_total{job="node-exporter"} > 4294967295`,
			wantFailure: "alertname: GPUInfiniBandCounterSaturated",
		},
		{
			name: "temperature without for", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "  )\n          >\n            85\n        for: 15m\n",
			new:         "  )\n          >\n            85\n        for: 1m\n",
			wantFailure: "alertname: GPUTemperatureHigh",
		},
		{
			name: "a SKU's fleet temperature summed, not averaged", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         "sum by (modelName, load) (cluster_sku_load:dcgm_gpu_temp:sum)\n          /\n            sum by (modelName, load) (cluster_sku_load:dcgm_gpu_temp:count)",
			new:         "sum by (modelName, load) (cluster_sku_load:dcgm_gpu_temp:sum)",
			wantFailure: "alertname: GPUHotterThanFleetPeers",
		},
		{
			name: "busy GPUs compared with all GPUs of their SKU", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         "sum by (modelName, load) (cluster_sku_load:dcgm_gpu_temp:sum)\n          /\n            sum by (modelName, load) (cluster_sku_load:dcgm_gpu_temp:count)",
			new:         "(sum by (modelName) (cluster_sku_load:dcgm_gpu_temp:sum) / sum by (modelName) (cluster_sku_load:dcgm_gpu_temp:count)) * on (modelName) group_right () group by (modelName, load) (cluster_sku_load:dcgm_gpu_temp:count)",
			wantFailure: "alertname: GPUHotterThanFleetPeers",
		},
		{
			name: "exporter down without its host is not alerted", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "[1h]))\n          or on (cluster, instance)\n            (up{job=\"dcgm-exporter\"} == 0)\n",
			new:         "[1h]))\n",
			wantFailure: "alertname: DCGMExporterDown",
		},
		{
			name: "unallocated idle GPUs alert", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace!=\"\"}[5m])",
			new:         "avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"elsewhere\"}[5m])",
			wantFailure: "alertname: GPUAllocatedIdle",
			config:      "../../internal/catalog/testdata/override.jsonnet",
		},
		{
			name: "one exporter of four down read as a cluster's scrape broken", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "            >\n              0.5\n          and\n            count by (cluster) (up{job=\"dcgm-exporter\"} == 0) > 1",
			new:         "            >\n              0.2\n          and\n            count by (cluster) (up{job=\"dcgm-exporter\"} == 0) > 0",
			wantFailure: "alertname: DCGMExportersDownInCluster",
		},
		{
			name: "a down exporter's host forgotten once its series are gone", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "(instance:dcgm_exporter_host:group and on (cluster, instance) (up{job=\"dcgm-exporter\"} == 0))",
			new:         "(instance:dcgm_exporter_host:group and on (cluster, instance) (up{job=\"dcgm-exporter\"} == 2))",
			wantFailure: `expr: "instance:dcgm_exporter_host:group"`,
		},
		// With honorLabels: true a GPU no pod holds carries its exporter target's own pod.
		{
			name: "an idle GPU read as held by the exporter's own pod", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "unless on (cluster, instance, namespace, pod)\n                    up\n                )\n              )\n            <",
			new:         "unless on (cluster, instance, namespace, pod)\n                    up{job=\"elsewhere\"}\n                )\n              )\n            <",
			wantFailure: "alertname: GPUAllocatedIdle",
		},
		{
			name: "a busy GPU no pod holds read as a hung job of the exporter's pod", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace!=\"\"} > 0.9,\n                        \"namespace\",\n                        \"$1\",\n                        \"exported_namespace\",\n                        \"(.+)\"\n                      ),\n                      \"pod\",\n                      \"$1\",\n                      \"exported_pod\",\n                      \"(.+)\"\n                    )\n                  unless on (cluster, instance, namespace, pod)\n                    up\n",
			new:         "DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace!=\"\"} > 0.9,\n                        \"namespace\",\n                        \"$1\",\n                        \"exported_namespace\",\n                        \"(.+)\"\n                      ),\n                      \"pod\",\n                      \"$1\",\n                      \"exported_pod\",\n                      \"(.+)\"\n                    )\n                  unless on (cluster, instance, namespace, pod)\n                    up{job=\"elsewhere\"}\n",
			wantFailure: "alertname: GPUBusyNotWorking",
		},
		{
			name: "memory growth of a GPU no pod holds forecast as the exporter pod's", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "predict_linear(DCGM_FI_DEV_FB_USED{namespace!=\"\"}[1h], 14400)\n                    >\n                      DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE,\n                    \"namespace\",\n                    \"$1\",\n                    \"exported_namespace\",\n                    \"(.+)\"\n                  ),\n                  \"pod\",\n                  \"$1\",\n                  \"exported_pod\",\n                  \"(.+)\"\n                )\n              unless on (cluster, instance, namespace, pod)\n                up\n",
			new:         "predict_linear(DCGM_FI_DEV_FB_USED{namespace!=\"\"}[1h], 14400)\n                    >\n                      DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE,\n                    \"namespace\",\n                    \"$1\",\n                    \"exported_namespace\",\n                    \"(.+)\"\n                  ),\n                  \"pod\",\n                  \"$1\",\n                  \"exported_pod\",\n                  \"(.+)\"\n                )\n              unless on (cluster, instance, namespace, pod)\n                up{job=\"elsewhere\"}\n",
			wantFailure: "alertname: GPUMemoryExhaustionRisk",
		},
		{
			name: "leaked memory missed on a GPU that carries the exporter's pod", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "DCGM_FI_DEV_FB_USED{exported_pod=\"\"} and on (cluster, instance, namespace, pod) up",
			new:         "DCGM_FI_DEV_FB_USED{exported_pod=\"\"} and on (cluster, instance, namespace, pod) up{job=\"elsewhere\"}",
			wantFailure: "alertname: GPUMemoryHeldWithoutPod",
		},
		{
			name: "the exporter's pod in the GPU-to-pod map", file: "rules/recording.yaml", testFile: output.RecordingTests,
			old:         "- record: gpu_pod:dcgm_gpu_info:group\n        expr: |2-\n            group by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod) (\n              (\n                  label_replace(\n                    label_replace(gpu_pod:dcgm_health:group, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                    \"pod\",\n                    \"$1\",\n                    \"exported_pod\",\n                    \"(.+)\"\n                  )\n                unless on (cluster, instance, namespace, pod)\n                  up\n",
			new:         "- record: gpu_pod:dcgm_gpu_info:group\n        expr: |2-\n            group by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod) (\n              (\n                  label_replace(\n                    label_replace(gpu_pod:dcgm_health:group, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                    \"pod\",\n                    \"$1\",\n                    \"exported_pod\",\n                    \"(.+)\"\n                  )\n                unless on (cluster, instance, namespace, pod)\n                  up{job=\"elsewhere\"}\n",
			wantFailure: `expr: "namespace:dcgm_gpus_attributed:count"`,
		},
		{
			name: "the exporter's namespace in a namespace rollup", file: "rules/recording.yaml", testFile: output.RecordingTests,
			old:         "DCGM_FI_DEV_FB_USED{namespace!=\"\"}, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                  \"pod\",\n                  \"$1\",\n                  \"exported_pod\",\n                  \"(.+)\"\n                )\n              unless on (cluster, instance, namespace, pod)\n                up\n",
			new:         "DCGM_FI_DEV_FB_USED{namespace!=\"\"}, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                  \"pod\",\n                  \"$1\",\n                  \"exported_pod\",\n                  \"(.+)\"\n                )\n              unless on (cluster, instance, namespace, pod)\n                up{job=\"elsewhere\"}\n",
			wantFailure: `expr: "namespace:dcgm_fb_used:sum"`,
		},
		{
			name: "idle GPUs billed to the exporter's namespace", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "- record: gpu_pod:gpu_allocated:share\n        expr: |2-\n            group by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod, GPU_I_ID) (\n              (\n                  label_replace(\n                    label_replace(gpu_pod:dcgm_health:group, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                    \"pod\",\n                    \"$1\",\n                    \"exported_pod\",\n                    \"(.+)\"\n                  )\n                unless on (cluster, instance, namespace, pod)\n                  up\n",
			new:         "- record: gpu_pod:gpu_allocated:share\n        expr: |2-\n            group by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod, GPU_I_ID) (\n              (\n                  label_replace(\n                    label_replace(gpu_pod:dcgm_health:group, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                    \"pod\",\n                    \"$1\",\n                    \"exported_pod\",\n                    \"(.+)\"\n                  )\n                unless on (cluster, instance, namespace, pod)\n                  up{job=\"elsewhere\"}\n",
			wantFailure: `expr: "round(namespace:gpu_allocated:sum, 0.001)"`,
		},
		{
			name: "slow burn against a tenth of the budget", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "ratio_rate3d{slo=\"InferenceTTFT\"} > (1 * (1 - 0.99))\n              and\n                slo:sli_error:ratio_rate6h{slo=\"InferenceTTFT\"} > (1 * (1 - 0.99))",
			new:         "ratio_rate3d{slo=\"InferenceTTFT\"} > (1 * (1 - 0.999))\n              and\n                slo:sli_error:ratio_rate6h{slo=\"InferenceTTFT\"} > (1 * (1 - 0.999))",
			wantFailure: "alertname: SLOInferenceTTFTSlowBurn",
		},
		{
			name: "MIG instance priced as a whole GPU", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "group_left ()\n                          mig_profile:gpu_share:ratio\n",
			new:         "group_left ()\n                          (mig_profile:gpu_share:ratio * 0 + 1)\n",
			wantFailure: `expr: "round(gpu_pod:gpu_allocated:share, 0.001)"`,
		},
		{
			name: "a 1g MIG instance weighs like a whole GPU in a namespace average", file: "rules/recording.yaml", testFile: output.RecordingTests,
			old:         "DCGM_FI_PROF_SM_ACTIVE{namespace!=\"\"},\n                    \"namespace\",\n                    \"$1\",\n                    \"exported_namespace\",\n                    \"(.+)\"\n                  ),\n                  \"pod\",\n                  \"$1\",\n                  \"exported_pod\",\n                  \"(.+)\"\n                )\n              * on (cluster, Hostname, gpu, UUID, GPU_I_ID, namespace, pod) group_left ()\n                gpu_pod:gpu_allocated:share\n            )\n          /\n            sum by (cluster, namespace) (\n                gpu_pod:gpu_allocated:share\n",
			new:         "DCGM_FI_PROF_SM_ACTIVE{namespace!=\"\"},\n                    \"namespace\",\n                    \"$1\",\n                    \"exported_namespace\",\n                    \"(.+)\"\n                  ),\n                  \"pod\",\n                  \"$1\",\n                  \"exported_pod\",\n                  \"(.+)\"\n                )\n              * on (cluster, Hostname, gpu, UUID, GPU_I_ID, namespace, pod) group_left ()\n                (gpu_pod:gpu_allocated:share > bool 0)\n            )\n          /\n            sum by (cluster, namespace) (\n                (gpu_pod:gpu_allocated:share > bool 0)\n",
			wantFailure: `expr: "namespace:dcgm_sm_active:avg"`,
		},
		{
			// Native histograms: a minute without requests has no share of slow ones (NaN);
			// counted as such, it makes the error budget unknown instead of unspent.
			name: "minutes without traffic read as NaN (native histograms)", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/native-histograms.jsonnet",
			old:         "                >\n                  0\n              )\n            *\n",
			new:         "                >=\n                  0\n              )\n            *\n",
			wantFailure: `slo:error_budget:remaining{slo=\"InferenceLatency\"}`,
		},
		{
			// Dynamo's frontend names the model `model`: read without relabeling, its
			// requests join no model of the SLO and its burn goes unseen.
			name: "Dynamo's model label not carried over", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "rate(dynamo_frontend_time_to_first_token_seconds_bucket{le=~\"1|1\\\\.0\"}[5m]),\n                    \"model_name\",\n                    \"$1\",\n                    \"model\",",
			new:         "rate(dynamo_frontend_time_to_first_token_seconds_bucket{le=~\"1|1\\\\.0\"}[5m]),\n                    \"model_name\",\n                    \"$1\",\n                    \"served_model\",",
			wantFailure: "alertname: SLOInferenceTTFTFastBurn",
		},
		{
			// SGLang's ladder read at a bound below the threshold: requests on time count as slow.
			name: "SGLang's good requests read below the threshold", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			// (the SLO's good events, indented as they are: goodput reads the same bucket first)
			old:         "\n                    rate(sglang:time_to_first_token_seconds_bucket{le=~\"1|1\\\\.0\"}[5m])",
			new:         "\n                    rate(sglang:time_to_first_token_seconds_bucket{le=~\"0.8\"}[5m])",
			wantFailure: "alertname: SLOInferenceTTFTFastBurn",
		},
		{
			// SGLang's 503s on its inference endpoints are refusals at admission (its queue
			// limit): read as failures, a server shedding load burns the request-error SLO.
			name: "SGLang's refusals read as failures", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         `status_code!="503",status_code=~"5.."`,
			new:         `status_code=~"5.."`,
			wantFailure: "alertname: SLOInferenceErrorsFastBurn",
		},
		{
			// Dynamo's overload rejections counted among the admitted requests halve its
			// error ratio: a burn reads at half its rate.
			name: "Dynamo's refusals among the admitted requests", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         `rate(dynamo_frontend_requests_total{error_type!="overload"}[5m])`,
			new:         `rate(dynamo_frontend_requests_total[5m])`,
			wantFailure: "alertname: SLOInferenceErrorsFastBurn",
		},
		{
			// Triton's refusals read under another reason: its shedding goes unseen.
			name: "Triton's refusals not read", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         `rate(nv_inference_request_failure{model!~"ensemble",reason="REJECTED"}[10m])`,
			new:         `rate(nv_inference_request_failure{model!~"ensemble",reason="CANCELED"}[10m])`,
			wantFailure: "alertname: GPUInferenceRequestsShed",
		},
		{
			// A level read as a counter: TensorRT-LLM's paused requests never increase while
			// they stay paused, so its preemption goes unseen.
			name: "TensorRT-LLM's paused requests read as a counter", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "max_over_time(trtllm_num_paused_requests[10m])",
			new:         "increase(trtllm_num_paused_requests[10m])",
			wantFailure: "alertname: GPUInferenceKVCachePressure",
		},
		{
			// The selector a fleet once put on every read of its workers behind Dynamo: their
			// KV cache goes unread with their requests.
			name: "a worker behind the frontend's KV cache unread", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "(avg_over_time(trtllm_kv_cache_utilization[10m]))",
			new:         `(avg_over_time(trtllm_kv_cache_utilization{namespace!="dynamo"}[10m]))`,
			wantFailure: "alertname: GPUInferenceKVCachePressure",
		},
		{
			name: "a worker's tokens counted beside its frontend's", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/engines.jsonnet",
			old:         "rate(trtllm_generation_tokens_total[5m])\n                unless on",
			new:         "rate(trtllm_generation_tokens_total[5m])\n                or on",
			wantFailure: `expr: "model:inference_generation_tokens:rate5m"`,
		},
		{
			// vLLM's HTTP counter names no model: read by namespace, a canary's errors are
			// diluted by, or lent to, another model's.
			name: "a vLLM canary's errors summed over its namespace's models", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         "sum by (cluster, namespace, model_name, track) (\n              rate(vllm:request_success_total{finished_reason=\"error\"",
			new:         "sum by (cluster, namespace, track) (\n              rate(vllm:request_success_total{finished_reason=\"error\"",
			wantFailure: "alertname: GPUInferenceCanaryRollback",
		},
		{
			// Dynamo's queue keeps its own model label: it joins no server of the alert.
			name: "Dynamo's queue not relabelled", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         `label_replace(dynamo_frontend_queued_requests, "model_name", "$1", "model", "(.*)")`,
			new:         `label_replace(dynamo_frontend_queued_requests, "model_name", "$1", "served_model", "(.*)")`,
			wantFailure: "alertname: GPUInferenceQueueGrowing",
		},
		{
			// SGLang's retractions are its preemptions: a rule that reads only vLLM's misses them.
			name: "SGLang's retractions not read", file: "rules/alerts.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "increase(sglang:num_retracted_requests_total[10m])",
			new:         "increase(sglang:num_retracted_requests_total{tp_rank=\"1\"}[10m])",
			wantFailure: "alertname: GPUInferenceKVCachePressure",
		},
		{
			// A single-node job counted as multi-node: a flap under it pages, though its
			// collectives never cross the port.
			name: "a single-node job read as multi-node", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "    gpu_pod:dcgm_pipe_tensor_active:avg10m\n                  )\n                )\n              >\n                1",
			new:         "    gpu_pod:dcgm_pipe_tensor_active:avg10m\n                  )\n                )\n              >\n                0",
			wantFailure: "alertname: GPUInfiniBandLinkUnstableUnderJob",
		},
		{
			// A port never cabled, down since the node booted, read as a link gone down.
			name: "a port never cabled read as down", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         `max_over_time(node_infiniband_state_id{job="node-exporter"}[1d]) >= 4`,
			new:         `max_over_time(node_infiniband_state_id{job="node-exporter"}[1d]) >= 0`,
			wantFailure: "alertname: GPUInfiniBandLinkUnstable",
		},
		{
			// A link that went down also counts in link_downed: flapping is the ports not down
			// now; read as the ports down, a down link fires twice and a flap not at all.
			name: "flapping read on the ports down", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "increase(node_infiniband_link_downed_total{job=\"node-exporter\"}[15m]) > 0\n                  unless on (cluster, instance, device, port)",
			new:         "increase(node_infiniband_link_downed_total{job=\"node-exporter\"}[15m]) > 0\n                  and on (cluster, instance, device, port)",
			wantFailure: "alertname: GPUInfiniBandLinkUnstable",
		},
		{
			// PortXmitWait counts ticks, each a transmit opportunity of transmitWaitBytes: read
			// as bytes, a congested port's loss reads eight times smaller and nothing tickets.
			name: "transmit wait ticks read as bytes", file: "rules/alerts.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "8 * rate(node_infiniband_port_transmit_wait_total",
			new:         "rate(node_infiniband_port_transmit_wait_total",
			wantFailure: "alertname: GPUInfiniBandCongested",
		},
		{
			// The writer leaves a crashed job's file untouched: read as a live rank, its last
			// window's straggler tickets for ever.
			name: "a crashed job's NCCL file read as live", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "[.]prom\",job=\"node-exporter\"}\n                <\n                  300,",
			new:         "[.]prom\",job=\"node-exporter\"}\n                <\n                  86400,",
			wantFailure: "alertname: GPUNcclStragglerRank",
		},
		{
			// Training jobs' pods found by their tensor activity: on dcgm-exporter's stock
			// counters, which send none, no rank has a job and no straggler is seen.
			name: "NCCL ranks' jobs read from a profiling field", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "gpu_pod:dcgm_gpu_info:group{pod!=\"\"}\n              * on (cluster, namespace, pod) group_left (owner_kind, owner_name)\n                max by (cluster, namespace, pod, owner_kind, owner_name) (\n                  kube_pod_owner{job=\"kube-state-metrics\",owner_is_controller=\"true\",owner_kind=~\"Job|PyTorchJob|TFJob|MPIJob|JobSet|RayJob|XGBoostJob|PaddleJob|LeaderWorkerSet\",owner_name!=\"<none>\"}\n                )\n",
			new:         "gpu_pod:dcgm_pipe_tensor_active:avg10m\n",
			wantFailure: "alertname: GPUNcclStragglerRank",
		},
		{
			// The inspector names its file by the GPU's CUDA UUID, without NVML's "GPU-" that
			// dcgm-exporter's UUID label carries: joined as it is, no rank is ever fresh.
			name: "an NCCL file's CUDA UUID joined without NVML's prefix", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "                \"UUID\",\n                \"GPU-$1\",",
			new:         "                \"UUID\",\n                \"$1\",",
			wantFailure: "alertname: GPUNcclStragglerRank",
		},
		{
			// Of two ranks the median is their mean: read, either may be ticketed as the one
			// the other waits for.
			name: "an NCCL communicator of two ranks read", file: "rules/alerts.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "quantile by (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) (\n                  0.5,\n                  (\n                      nccl_collective_exec_time_microseconds{job=\"node-exporter\",nranks!~\"1|2\"}\n                    * on (cluster, node) group_left (namespace, owner_kind, owner_name)\n                      rank:nccl_inspector_file:fresh\n                  )\n                )\n              / on (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) group_right ()\n                (\n                    nccl_collective_exec_time_microseconds{job=\"node-exporter\",nranks!~\"1|2\"}",
			new:         "quantile by (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) (\n                  0.5,\n                  (\n                      nccl_collective_exec_time_microseconds{job=\"node-exporter\"}\n                    * on (cluster, node) group_left (namespace, owner_kind, owner_name)\n                      rank:nccl_inspector_file:fresh\n                  )\n                )\n              / on (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) group_right ()\n                (\n                    nccl_collective_exec_time_microseconds{job=\"node-exporter\"}",
			wantFailure: "alertname: GPUNcclStragglerRank",
		},
		{
			// A collective's kernel ends when every rank has reached it: the rank that waits
			// reads the longest time. Ticketing the longest names the rank that arrived first,
			// never the one its peers wait for.
			name: "an NCCL straggler read as the rank with the longest time", file: "rules/alerts.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "            )\n          >\n            1.5\n        for: 15m",
			new:         "            )\n          <\n            0.6667\n        for: 15m",
			wantFailure: "alertname: GPUNcclStragglerRank",
		},
		{
			// comm_name is the framework's name for a communicator, the same in every job:
			// compared across jobs, the ranks of a job that collectives keep waiting read as
			// stragglers of another's.
			name: "NCCL communicators of two jobs merged by name", file: "rules/alerts.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "quantile by (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) (\n                  0.5,\n                  (\n                      nccl_collective_exec_time_microseconds{job=\"node-exporter\",nranks!~\"1|2\"}\n                    * on (cluster, node) group_left (namespace, owner_kind, owner_name)\n                      rank:nccl_inspector_file:fresh\n                  )\n                )\n              / on (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) group_right ()",
			new:         "quantile by (cluster, comm_name, nranks, n_nodes, collective, message_size) (\n                  0.5,\n                  (\n                      nccl_collective_exec_time_microseconds{job=\"node-exporter\",nranks!~\"1|2\"}\n                    * on (cluster, node) group_left (namespace, owner_kind, owner_name)\n                      rank:nccl_inspector_file:fresh\n                  )\n                )\n              / on (cluster, comm_name, nranks, n_nodes, collective, message_size) group_right ()",
			wantFailure: "alertname: GPUNcclStragglerRank",
		},
		{
			// The inspector names a rank by its pod's host name: joined on another label, every
			// rank matches every pod of its cluster, and the record fails to evaluate.
			name: "NCCL ranks joined to the GPUs by another label", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "label_replace(pod:nccl_inspector_file:fresh, \"node\", \"$1\", \"pod\", \"(.*)\")",
			new:         "label_replace(pod:nccl_inspector_file:fresh, \"node\", \"$1\", \"container\", \"(.*)\")",
			wantFailure: "rule: communicator:nccl_bus_bandwidth_gbs:max",
		},
		{
			// Ranks that wait for a late one measure less bandwidth: read by its ranks' median,
			// a communicator with a straggler reads as starved by the network.
			name: "a starved NCCL communicator read by the rank that waited most", file: "rules/recording.yaml", testFile: output.AlertTests, config: trainingCatalog,
			old:         "max by (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) (\n            (\n                nccl_bus_bandwidth_gbs",
			new:         "min by (cluster, namespace, owner_kind, owner_name, comm_name, nranks, n_nodes, collective, message_size) (\n            (\n                nccl_bus_bandwidth_gbs",
			wantFailure: "alertname: GPUNcclCollectiveStarved",
		},
		{
			name: "a time-sliced GPU's power counted once per pod", file: "rules/recording.yaml", testFile: output.RecordingTests, config: "testdata/virtual-gpus.jsonnet",
			old:         "              )\n            * on (cluster, Hostname, gpu, UUID, GPU_I_ID, namespace, pod) group_left ()\n              gpu_pod:gpu_allocated:share\n          )\n  - name: gpuobs-release-recording",
			new:         "              )\n          )\n  - name: gpuobs-release-recording",
			wantFailure: `expr: "namespace:dcgm_power_usage:sum"`,
		},
		{
			name: "a time-sliced GPU's framebuffer summed with its pods' parts", file: "rules/recording.yaml", testFile: output.RecordingTests, config: "testdata/virtual-gpus.jsonnet",
			old:         "max by (cluster, Hostname, gpu, UUID, modelName, GPU_I_ID) (DCGM_FI_DEV_FB_USED)",
			new:         "sum by (cluster, Hostname, gpu, UUID, modelName, GPU_I_ID) (DCGM_FI_DEV_FB_USED)",
			wantFailure: `expr: "node:dcgm_fb_used:sum"`,
		},
		{
			name: "healthy GPUs counted once against capacity in time-sliced replicas", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/virtual-gpus.jsonnet",
			old:         "expr: |2-\n            2\n          *\n            count by (cluster)",
			new:         "expr: |2-\n            1\n          *\n            count by (cluster)",
			wantFailure: `expr: "cluster:gpu_healthy:count"`,
		},
		{
			name: "a CPU pod waiting for a node tickets as a GPU pod", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "          and on (cluster, namespace, pod)\n            (max by (cluster, namespace, pod) (kube_pod_status_unschedulable{job=\"kube-state-metrics\"}) == 1)\n",
			new:         "          or on (cluster, namespace, pod)\n            (max by (cluster, namespace, pod) (kube_pod_status_unschedulable{job=\"kube-state-metrics\"}) == 1)\n",
			wantFailure: "alertname: GPUPodUnschedulable",
		},
		{
			name: "quota use read against what is left", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "resource=\"requests.nvidia.com/gpu\",type=\"used\"}",
			new:         "resource=\"requests.nvidia.com/gpu\",type=\"hard\"}",
			wantFailure: "alertname: GPUNamespaceQuotaNearlyFull",
		},
		{
			name: "a device plugin restart tickets", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "              \"(.+)\"\n            )\n          )\n        for: 15m\n",
			new:         "              \"(.+)\"\n            )\n          )\n        for: 1m\n",
			wantFailure: "alertname: GPUDevicePluginDegraded",
		},
		{
			name: "a node whose exporter reports counted as without one", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "group by (cluster, Hostname) (last_over_time(instance:dcgm_exporter_host:group[1h]))",
			new:         "group by (cluster, Hostname) (last_over_time(instance:dcgm_exporter_host:group{Hostname=\"none\"}[1h]))",
			wantFailure: "alertname: DCGMExporterMissingOnNode",
		},
		{
			name: "an SKU without profiling support tickets", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "          and on (cluster, modelName)\n            group by (cluster, modelName) (DCGM_FI_PROF_GR_ENGINE_ACTIVE)\n",
			new:         "",
			wantFailure: "alertname: DCGMProfilingMetricsMissing",
		},
		{
			name: "a second exporter job beside the catalog's tickets", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "          unless on (cluster)\n            group by (cluster) (up{job=\"dcgm-exporter\"})\n",
			new:         "          unless on (cluster)\n            group by (cluster) (up{job=\"dcgm-exporter\",instance=\"none\"})\n",
			wantFailure: "alertname: DCGMExporterJobMismatch",
		},
		{
			name: "a node whose GPUs stopped reporting counted as blind", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "              (\n                  (up{job=\"dcgm-exporter\"} == 0)\n",
			new:         "              (\n                  (up{job=\"dcgm-exporter\"} >= 0)\n",
			wantFailure: `expr: "cluster:kube_gpu_capacity_blind:sum"`,
		},
		{
			name: "an idle link's power saving read as a degraded link", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "            >\n              0.5\n        for: 15m\n",
			new:         "            >=\n              0\n        for: 15m\n",
			wantFailure: "alertname: GPUPcieLinkGenDegraded",
		},
		{
			name: "a link at full width read as degraded", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "DCGM_FI_DEV_PCIE_LINK_WIDTH < DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH",
			new:         "DCGM_FI_DEV_PCIE_LINK_WIDTH <= DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH",
			wantFailure: "alertname: GPUPcieLinkWidthDegraded",
		},
		{
			name: "a GPU renumbered by a reboot read as missing", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "              unless on (cluster, Hostname, UUID)\n                gpu_pod:dcgm_health:group\n",
			new:         "              unless on (cluster, Hostname, gpu, UUID)\n                gpu_pod:dcgm_health:group\n",
			wantFailure: "alertname: GPUSeriesMissing",
		},
		{
			name: "the old board of an RMA swap read as missing", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "            unless on (cluster, Hostname, pci_bus_id)\n              gpu_pod:dcgm_health:group{pci_bus_id!=\"\"}\n",
			new:         "            unless on (cluster, Hostname, pci_bus_id)\n              gpu_pod:dcgm_health:group{pci_bus_id=\"none\"}\n",
			wantFailure: "alertname: GPUSeriesMissing",
		},
		{
			name: "a missing GPU alerted once per pod it had", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "                max by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName) (\n                    present_over_time(gpu_pod:dcgm_health:group[1h])\n",
			new:         "                max by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod) (\n                    present_over_time(gpu_pod:dcgm_health:group[1h])\n",
			wantFailure: "alertname: GPUSeriesMissing",
		},
		{
			name: "a target that left service discovery read as failing", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "              max_over_time(up{job=\"dcgm-exporter\"}[5m]) == 0\n          and\n            up{job=\"dcgm-exporter\"}\n",
			new:         "              max_over_time(up{job=\"dcgm-exporter\"}[5m]) == 0\n",
			wantFailure: "alertname: DCGMExporterScrapesFailing",
		},
		{
			name: "a validated driver branch outside the gate", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         `DCGM_FI_DRIVER_VERSION!~"(535|550|570|580|590|595)[.].+",`,
			new:         `DCGM_FI_DRIVER_VERSION!~"(535|550|580|590)[.].+",`,
			wantFailure: "alertname: GPUDriverNotValidated",
		},
		{
			name: "a branch newer than the gate tickets as not validated", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         `,DCGM_FI_DRIVER_VERSION!~"([6-9][0-9][0-9]|59[6-9]|[1-9][0-9]{3,})[.].+",modelName="NVIDIA H100 80GB HBM3"`,
			new:         `,modelName="NVIDIA H100 80GB HBM3"`,
			wantFailure: "alertname: GPUDriverNotValidated",
		},
		{
			name: "a four-digit branch read as older than the gate", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         `DCGM_FI_DRIVER_VERSION=~"([6-9][0-9][0-9]|59[6-9]|[1-9][0-9]{3,})[.].+",modelName="NVIDIA H100 80GB HBM3"`,
			new:         `DCGM_FI_DRIVER_VERSION=~"([6-9][0-9][0-9]|59[6-9])[.].+",modelName="NVIDIA H100 80GB HBM3"`,
			wantFailure: "alertname: GPUDriverNewerThanGate",
		},
		{
			name: "slower requests under a demand surge read as a throughput drop", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "          and on (cluster, namespace, model_name)\n              abs(\n",
			new:         "          and on (cluster, namespace, model_name)\n              0 * abs(\n",
			wantFailure: "alertname: GPUInferenceThroughputDrop",
		},
		{
			name: "requests the scheduler parked read as a backlog", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "vllm:num_requests_waiting_by_reason{reason=\"capacity\"}\n",
			new:         "vllm:num_requests_waiting\n",
			wantFailure: "alertname: GPUInferenceQueueGrowing",
		},
		{
			name: "a sleeping engine's last KV-cache reading read as pressure", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         `(max by (cluster, namespace, pod, engine) (vllm:engine_sleep_state{sleep_state="awake"}) == 0)`,
			new:         `(max by (cluster, namespace, pod, engine) (vllm:engine_sleep_state{sleep_state="awake"}) == 2)`,
			wantFailure: "alertname: GPUInferenceKVCachePressure",
		},
		{
			name: "a sleeping engine read as a throughput drop", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         `(max by (cluster, namespace, pod, engine) (vllm:engine_sleep_state{sleep_state="awake"}) == 0)`,
			new:         `(max by (cluster, namespace, pod, engine) (vllm:engine_sleep_state{sleep_state="awake"}) == 2)`,
			wantFailure: "alertname: GPUInferenceThroughputDrop",
		},
		{
			name: "the GPU of a sleeping engine read as idle", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         `(max by (cluster, namespace, pod) (vllm:engine_sleep_state{sleep_state="awake"}) == 0)`,
			new:         `(max by (cluster, namespace, pod) (vllm:engine_sleep_state{sleep_state="awake"}) == 2)`,
			wantFailure: "alertname: GPUAllocatedIdle",
		},
		{
			name: "the deprecated KV-cache gauge not read", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "avg_over_time(vllm:gpu_cache_usage_perc[10m])",
			new:         "avg_over_time(vllm:kv_cache_usage_perc[10m])",
			wantFailure: "alertname: GPUInferenceKVCachePressure",
		},
		{
			name: "the deprecated KV-cache gauge read over the current one", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         kvCacheReads("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
			new:         kvCacheReads("vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"),
			wantFailure: "alertname: GPUInferenceKVCachePressure",
		},
		{
			name: "a server on the deprecated KV-cache gauge read as missing it", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "(vllm:kv_cache_usage_perc or vllm:gpu_cache_usage_perc)",
			new:         "(vllm:kv_cache_usage_perc)",
			wantFailure: "alertname: GPUInferenceMetricMissing",
		},
		{
			name: "the TPOT SLO reads no server on the deprecated inter-token histogram", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "              rate(vllm:inter_token_latency_seconds_count[5m])\n            or\n              rate(vllm:time_per_output_token_seconds_count[5m])\n          )",
			new:         "              rate(vllm:inter_token_latency_seconds_count[5m])\n          )",
			wantFailure: `expr: "round(slo:error_budget:burn_rate{slo=\"InferenceTPOT\"}, 0.001)"`,
		},
		{
			name: "goodput reads no server on the deprecated inter-token histogram", file: "rules/recording.yaml", testFile: output.RecordsTests,
			old:         "                    rate(vllm:inter_token_latency_seconds_bucket{le=~\"0\\\\.1\"}[5m])\n                  or\n                    rate(vllm:time_per_output_token_seconds_bucket{le=~\"0\\\\.1\"}[5m])",
			new:         "                    rate(vllm:inter_token_latency_seconds_bucket{le=~\"0\\\\.1\"}[5m])",
			wantFailure: `expr: "round(model:inference_goodput_tokens:rate5m, 0.001)"`,
		},
		{
			// Dynamo's frontend names the model model: not relabelled, its tracks' errors join
			// no model of the release gate, and a failing canary behind it promotes.
			name: "Dynamo's errors per track not relabelled", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "dynamo_frontend_requests_total{error_type!~\"overload|cancelled|validation|not_found\",status=\"error\",track=~\"canary|stable\"}[5m]\n                      ),\n                      \"model_name\",",
			new:         "dynamo_frontend_requests_total{error_type!~\"overload|cancelled|validation|not_found\",status=\"error\",track=~\"canary|stable\"}[5m]\n                      ),\n                      \"served_by\",",
			wantFailure: "alertname: GPUInferenceCanaryRollback",
		},
		{
			// The breakdown reads every engine that times the phase: without SGLang's
			// scheduler histogram, its models' queueing time is gone from L4.
			name: "SGLang's queueing time left out of the breakdown", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/engines.jsonnet",
			old:         "rate(vllm:request_queue_time_seconds_sum[5m]) or rate(sglang:queue_time_seconds_sum[5m])",
			new:         "rate(vllm:request_queue_time_seconds_sum[5m])",
			wantFailure: `expr: "round(model:inference_request_queue_time_seconds:mean_rate5m, 0.001)"`,
		},
		{
			// Goodput reads every engine's histograms at the objective's bound: read at another,
			// an SGLang model's gaps match no bucket and its goodput is gone.
			name: "goodput reads SGLang's gaps at another bound", file: "rules/recording.yaml", testFile: output.RecordsTests, config: "testdata/engines.jsonnet",
			old:         `rate(sglang:inter_token_latency_seconds_bucket{le=~"0\\.1"}[5m])`,
			new:         `rate(sglang:inter_token_latency_seconds_bucket{le=~"0\\.01"}[5m])`,
			wantFailure: `expr: "round(model:inference_goodput_tokens:rate5m, 0.001)"`,
		},
		{
			name: "the canary decision takes the better of its signals", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "                  )\n                >=\n                  (\n                      (model:inference_request_errors:canary_ratio_delta > bool 0.005)",
			new:         "                  )\n                <\n                  (\n                      (model:inference_request_errors:canary_ratio_delta > bool 0.005)",
			wantFailure: "alertname: GPUInferenceCanaryRollback",
		},
		{
			name: "a double-bit error repeating within an incident pages again", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "            node:gpu_maintenance:flag\n        keep_firing_for: 30m\n        labels:\n          family: memory\n          severity: critical\n",
			new:         "            node:gpu_maintenance:flag\n        labels:\n          family: memory\n          severity: critical\n",
			wantFailure: "alertname: GPUEccDoubleBit,",
		},
		{
			name: "a failed row remap pages again after a Prometheus outage", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "last_over_time(DCGM_FI_DEV_ROW_REMAP_FAILURE[30m] offset 10m)",
			new:         "last_over_time(DCGM_FI_DEV_ROW_REMAP_FAILURE[5m] offset 10m)",
			wantFailure: "alertname: GPURowRemapFailure,",
		},
		{
			name: "bursty demand read as a slowdown", file: "rules/recording.yaml", testFile: output.AlertTests,
			old:         "(avg_over_time(model:inference_requests_running:sum[5m]) > 0)",
			new:         "(model:inference_requests_running:sum > 0)",
			wantFailure: "alertname: GPUInferenceThroughputDrop,",
		},
		{
			// SGLang's tensor-parallel ranks each report the same running batch: summed, a
			// request counts once per rank and a slowdown reads as a steady speed halved.
			name: "SGLang's running batch counted once per rank", file: "rules/recording.yaml", testFile: output.AlertTests, config: "testdata/engines.jsonnet",
			old:         "max without (moe_ep_rank, pp_rank, tp_rank) (sglang:num_running_reqs)",
			new:         "sglang:num_running_reqs",
			wantFailure: "alertname: GPUInferenceThroughputDrop,",
		},
		{
			name: "the default counter set tickets per node, not per cluster", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         `count by (cluster) (group by (cluster, Hostname) (gpu_pod:dcgm_health:group{gpu="0"}))`,
			new:         `count by (cluster, Hostname) (group by (cluster, Hostname) (gpu_pod:dcgm_health:group{gpu="0"}))`,
			wantFailure: "alertname: DCGMExporterStockCounterSet",
		},
		{
			name: "two errors on a cohort read as a regression", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "cluster_driver:dcgm_ecc_dbe_events:sum1d >= 3,",
			new:         "cluster_driver:dcgm_ecc_dbe_events:sum1d >= 1,",
			wantFailure: "alertname: GPUCohortDriverErrors",
		},
		{
			name: "a cohort compared with the whole cluster, itself included", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "                          - on (cluster) group_right ()\n                            cluster_driver:dcgm_ecc_dbe_events:sum1d\n",
			new:         "                          - on (cluster) group_right ()\n                            0 * cluster_driver:dcgm_ecc_dbe_events:sum1d\n",
			wantFailure: "alertname: GPUCohortDriverErrors",
		},
		{
			name: "TPOT slow burn against a tenth of the budget", file: "rules/alerts.yaml", testFile: output.AlertTests,
			old:         "ratio_rate3d{slo=\"InferenceTPOT\"} > (1 * (1 - 0.99))\n              and\n                slo:sli_error:ratio_rate6h{slo=\"InferenceTPOT\"} > (1 * (1 - 0.99))",
			new:         "ratio_rate3d{slo=\"InferenceTPOT\"} > (1 * (1 - 0.999))\n              and\n                slo:sli_error:ratio_rate6h{slo=\"InferenceTPOT\"} > (1 * (1 - 0.999))",
			wantFailure: "alertname: SLOInferenceTPOTSlowBurn",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := generateInto(t, c.config)
			replaceIn(t, filepath.Join(dir, c.file), c.old, c.new)
			out, err := promtoolTest(t, dir, c.testFile, testsOf(t, c.wantFailure))
			if err == nil {
				t.Fatalf("promtool accepted the mutation:\n%s", out)
			}
			if !strings.Contains(out, c.wantFailure) {
				t.Errorf("failure does not name %q:\n%s", c.wantFailure, out)
			}
		})
	}
}

// testsOf is the alert or query a mutation's expected failure names (as promtool prints
// them): a mutation needs only the tests of what it breaks. Nothing when it names neither.
func testsOf(t *testing.T, wantFailure string) []string {
	t.Helper()
	if alert, ok := strings.CutPrefix(wantFailure, "alertname: "); ok {
		name, _, _ := strings.Cut(alert, ",")
		return []string{name}
	}
	quoted, ok := strings.CutPrefix(wantFailure, "expr: ")
	if !ok {
		return nil
	}
	expr, err := strconv.Unquote(quoted)
	if err != nil {
		t.Fatal(err)
	}
	return []string{expr}
}

// TestSmallCatalog shows the test files of the small fixture catalog (go test -update rewrites
// them).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t))
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}

// TestGeneratedTestsRunWithTheServersFlags: a team's record that needs an experimental function
// (limitk) on servers that run with promql-experimental-functions: its generated test passes
// with the catalog's flags and promtool refuses it without them. On the adopter's catalog.
func TestGeneratedTestsRunWithTheServersFlags(t *testing.T) {
	t.Parallel()
	config := plantest.Catalog(t, `local t = import 'lib/test.libsonnet';
(import 'adopter.jsonnet') {
  prometheus+: { enableFeatures: ['promql-experimental-functions'] },
  records+: {
    'k8s_cluster:dcgm_gpu_temp:limit2': {
      family: 'thermal',
      expr: 'limitk by (k8s_cluster) (2, max by (k8s_cluster, node, gpu_index) (DCGM_FI_DEV_GPU_TEMP))',
      tests: [t.recordCase('two GPUs of three', [
        t.series('DCGM_FI_DEV_GPU_TEMP', '60x60', { k8s_cluster: 'prod', node: 'a', gpu_index: std.toString(i) }) for i in [0, 1, 2]
      ], [t.sample({ k8s_cluster: 'prod' }, 2)], 'count by (k8s_cluster) (k8s_cluster:dcgm_gpu_temp:limit2)')],
    },
  },
}
`)
	p := plantest.Plan(t, config)
	out := generateInto(t, config)
	// Only the new record's case runs: the rest of the file is what the profile tests run.
	// (promtool loads the rules for each group it runs, so the run without the flag failing
	// on limitk also proves the split kept the record.)
	only := []string{"count by (k8s_cluster) (k8s_cluster:dcgm_gpu_temp:limit2)"}
	if text, err := promtoolTest(t, out, output.RecordsTests, only, "--enable-feature="+strings.Join(p.Model.Prometheus.EnableFeatures, ",")); err != nil || !strings.Contains(text, "SUCCESS") {
		t.Errorf("with the catalog's flags: %v\n%s", err, text)
	}
	if text, err := promtoolTest(t, out, output.RecordsTests, only); err == nil || !strings.Contains(text, "limitk") {
		t.Errorf("promtool passed the test without the flag:\n%s", text)
	}
}
