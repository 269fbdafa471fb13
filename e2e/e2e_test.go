//go:build e2e

// Package e2e runs the generated rules and Alertmanager configuration in a real Prometheus and
// a real Alertmanager (built from the module proxy at the pinned versions), fed by a small
// exporter that serves series shaped like dcgm-exporter's. make e2e runs it.
package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/synth"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// limit bounds the whole run.
const limit = 4 * time.Minute

const cluster = "e2e"

// exporter serves the series of four GPUs on one host as dcgm-exporter does; faults are
// injected by changing its state.
type exporter struct {
	mu   sync.Mutex
	m    *model.Model
	gpus []synth.GPU
	dbe  map[int]int
	xid  map[int]int
	// temp is a GPU's temperature where it is not the healthy 45 °C.
	temp map[int]float64
}

// newExporter serves four GPUs of one host; seq numbers the first GPU fleet-wide (UUIDs).
func newExporter(m *model.Model, cluster, host string, seq int) *exporter {
	e := &exporter{m: m, dbe: map[int]int{}, xid: map[int]int{}, temp: map[int]float64{}}
	for i := range 4 {
		e.gpus = append(e.gpus, synth.GPU{Cluster: cluster, Host: host, Index: i, Seq: seq + i, Model: synth.ModelName})
	}
	return e
}

func (e *exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	write := func(metric string, l synth.Labels, v float64) {
		// Prometheus adds cluster (relabeling, or its external label), job and instance, and
		// under a ServiceMonitor the target's own pod.
		delete(l, e.m.Labels.Cluster)
		delete(l, "job")
		delete(l, "instance")
		for k := range e.gpus[0].TargetPod(e.m) {
			delete(l, k)
		}
		fmt.Fprintf(&b, "%s %g\n", synth.Series(metric, l), v)
	}
	for i, g := range e.gpus {
		l := g.WithoutPod(e.m)
		write(e.m.Exporter.HealthFields[0], l.With(nil), cmp.Or(e.temp[i], 45))
		write("DCGM_FI_DEV_POWER_USAGE", l.With(nil), float64(300+10*i))
		write("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", l.With(nil), float64(e.dbe[i]))
		if x := e.xid[i]; x > 0 {
			write("DCGM_FI_DEV_XID_ERRORS", l.With(map[string]string{"err_code": fmt.Sprint(x), "err_msg": "injected"}), float64(x))
		} else {
			write("DCGM_FI_DEV_XID_ERRORS", l.With(nil), 0)
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = io.WriteString(w, strings.ReplaceAll(b.String(), "{}", ""))
}

func (e *exporter) inject(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f()
}

// webhook records the notifications Alertmanager sends, by receiver.
type webhook struct {
	mu   sync.Mutex
	got  []notification
	logf func(string, ...any)
}

type notification struct {
	Receiver string `json:"receiver"`
	Alerts   []struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"alerts"`
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var n notification
	if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got = append(h.got, n)
	h.mu.Unlock()
	var names []string
	for _, a := range n.Alerts {
		names = append(names, a.Labels["alertname"]+"{gpu="+a.Labels["gpu"]+"}")
	}
	h.logf("webhook: %s got one notification with %s", n.Receiver, strings.Join(names, ", "))
}

// delivered lists receiver/alertname/gpu of every alert notified to a receiver so far.
func (h *webhook) delivered(receiver string) []string {
	var out []string
	for _, n := range h.to(receiver) {
		for _, a := range n.Alerts {
			out = append(out, n.Receiver+"/"+a.Labels["alertname"]+"/"+a.Labels["gpu"])
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// last is the latest notification to a receiver.
func (h *webhook) last(receiver string) notification {
	got := h.to(receiver)
	if len(got) == 0 {
		return notification{}
	}
	return got[len(got)-1]
}

func (h *webhook) notifications(receiver string) int { return len(h.to(receiver)) }

// to lists the notifications a receiver got, in order.
func (h *webhook) to(receiver string) []notification {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []notification
	for _, n := range h.got {
		if n.Receiver == receiver {
			out = append(out, n)
		}
	}
	return out
}

// freeAddr gives a loopback address for a server the test starts. Its port is free now and,
// where the kernel leaves room, lies below its range for outgoing connections, so that no scrape
// or query takes it before the server binds it; it is never given twice in one run.
func freeAddr(t *testing.T) string {
	t.Helper()
	for port := firstOutgoingPort() - 1; port >= 1024; port-- {
		if addr, ok := given.take(net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); ok {
			return addr
		}
	}
	addr, ok := given.take("127.0.0.1:0")
	if !ok {
		t.Fatal("no free port")
	}
	return addr
}

// addresses are the addresses freeAddr gave.
type addresses struct {
	mu    sync.Mutex
	given map[string]bool
}

var given = &addresses{given: map[string]bool{}}

// take gives addr (port 0: one the kernel picks) where it is free now and was not given before.
func (a *addresses) take(addr string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.given[addr] {
		return "", false
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", false
	}
	addr = l.Addr().String()
	_ = l.Close()
	if a.given[addr] {
		return "", false
	}
	a.given[addr] = true
	return addr, true
}

// firstOutgoingPort is the first port the kernel hands to outgoing connections
// (net.ipv4.ip_local_port_range), 32768 where that cannot be read.
func firstOutgoingPort() int {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				return n
			}
		}
	}
	return 32768
}

// begin bounds a test's run by limit; the context it gives carries what the test's waits
// learn (waitsIn). Where the test fails in a wait, it says why once more after the processes'
// logs, so that the end of the output names the failure.
func begin(t *testing.T) context.Context {
	t.Helper()
	w := &waits{}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), waitsKey{}, w), limit)
	t.Cleanup(func() {
		cancel()
		if reason := w.failure(); reason != "" {
			t.Logf("failed: %s", reason)
		}
	})
	return ctx
}

// waits is what a test's waits learn while it runs: the first process that ended before the
// test did, and the wait that failed.
type waits struct {
	mu     sync.Mutex
	exited string
	failed string
}

type waitsKey struct{}

// waitsIn gives the waits of the test whose context begin gave.
func waitsIn(t *testing.T, ctx context.Context) *waits {
	t.Helper()
	w, ok := ctx.Value(waitsKey{}).(*waits)
	if !ok {
		t.Fatal("the context does not come from begin")
	}
	return w
}

// exit records a process that ended before the test did; the first one is kept.
func (w *waits) exit(what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.exited == "" {
		w.exited = what
	}
}

// early is the first process that ended before the test did, with how, or "".
func (w *waits) early() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.exited
}

func (w *waits) fail(reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed = reason
}

func (w *waits) failure() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// start runs a binary until the test ends; its output goes to a log file in dir. Where it ends
// before the test does (a port taken, a flag refused), the test's next wait fails at once and
// says so, with the end of its log.
func start(t *testing.T, ctx context.Context, dir, name, bin string, args ...string) {
	t.Helper()
	w := waitsIn(t, ctx)
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	var stopping atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := cmd.Wait()
		if !stopping.Load() && ctx.Err() == nil {
			w.exit(fmt.Sprintf("%s ended before the test (%v); its log ends:\n%s", name, err, logTail(logFile.Name(), 10)))
		}
	}()
	t.Cleanup(func() {
		stopping.Store(true)
		_ = cmd.Process.Kill()
		<-done // killed: its exit status says so
		logFile.Close()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, logTail(logFile.Name(), 40))
		}
	})
}

// logTail is the last n lines of a process's log file.
func logTail(path string, n int) string {
	log, _ := os.ReadFile(path)
	lines := strings.Split(string(log), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// eventually polls f until it returns nil; the test fails where wait gives up.
func eventually(t *testing.T, ctx context.Context, what string, f func() error) {
	t.Helper()
	w := waitsIn(t, ctx)
	since := time.Now()
	if err := wait(ctx, w, f); err != nil {
		reason := what + ": " + err.Error()
		w.fail(reason)
		t.Fatal(reason)
	}
	t.Logf("%s after %.1fs", what, time.Since(since).Seconds())
}

// wait polls f until it returns nil. It gives up, saying why, when the deadline passes or a
// process the test started has ended.
func wait(ctx context.Context, w *waits, f func() error) error {
	since := time.Now()
	for {
		err := f()
		if err == nil {
			return nil
		}
		if early := w.early(); early != "" {
			return errors.New(early)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up after %.0fs: %w", time.Since(since).Seconds(), err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func binary(t *testing.T, env string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Fatalf("%s is not set: run make e2e, which builds the pinned binaries", env)
	}
	return path
}

func TestEndToEnd(t *testing.T) {
	ctx := begin(t)
	prometheusBin := binary(t, "GPUOBS_PROMETHEUS")

	p := plantest.Plan(t, "testdata/e2e.jsonnet")
	m := p.Model
	dir := generate(t, p)
	exp := newExporter(m, cluster, "gpu-node-1", 100)
	exporterServer := httptest.NewServer(exp)
	defer exporterServer.Close()
	am, hook := startAlertmanager(t, ctx, dir, m)

	promAddr := freeAddr(t)
	promConfig := filepath.Join(dir, "prometheus.yml")
	writeYAML(t, promConfig, prometheusConfig(m, am, exporterServer.URL, map[string]string{m.Labels.Cluster: cluster}, nil,
		filepath.Join(dir, output.RecordingRules), filepath.Join(dir, output.AlertRules)))
	start(t, ctx, dir, "prometheus", prometheusBin,
		"--config.file="+promConfig, "--storage.tsdb.path="+filepath.Join(dir, "prom-data"),
		"--web.listen-address="+promAddr)
	ready(t, ctx, "http://"+promAddr, "http://"+am)
	// A healthy baseline, so that the counters have history.
	eventually(t, ctx, "four GPUs scraped", func() error {
		return wantSamples("http://"+promAddr, m.Exporter.HealthFields[0], 4)
	})
	time.Sleep(3 * time.Second)
	faults(t, ctx, m, exp, "http://"+promAddr, am, hook)
}

// generate writes the plan's whole output into a temporary directory.
func generate(t *testing.T, p *plan.Plan) string {
	t.Helper()
	dir := t.TempDir()
	files, managed, err := generators.Run(p, generators.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := emit.Write(dir, files, managed); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startAlertmanager runs Alertmanager on the generated configuration, every receiver that
// notifies pointed at a webhook recorder; it returns its address and the recorder.
func startAlertmanager(t *testing.T, ctx context.Context, dir string, m *model.Model) (string, *webhook) {
	t.Helper()
	hook := &webhook{logf: t.Logf}
	hookServer := httptest.NewServer(hook)
	t.Cleanup(hookServer.Close)
	addr := freeAddr(t)
	amConfig := withWebhooks(t, filepath.Join(dir, output.AlertmanagerConfig), hookServer.URL, m.Alertmanager.SilentReceiver)
	start(t, ctx, dir, "alertmanager", binary(t, "GPUOBS_ALERTMANAGER"),
		"--config.file="+amConfig, "--storage.path="+filepath.Join(dir, "am-data"),
		"--web.listen-address="+addr, "--cluster.listen-address=")
	return addr, hook
}

// prometheusConfig scrapes one exporter every second, with target labels, evaluates the rule
// files every second and sends alerts to Alertmanager; external labels name the shard.
func prometheusConfig(m *model.Model, am, exporterURL string, targetLabels, external map[string]string, ruleFiles ...string) map[string]any {
	global := map[string]any{"scrape_interval": "1s", "evaluation_interval": "1s"}
	if external != nil {
		global["external_labels"] = external
	}
	return map[string]any{
		"global":     global,
		"rule_files": ruleFiles,
		"alerting":   map[string]any{"alertmanagers": []any{map[string]any{"static_configs": []any{map[string]any{"targets": []string{am}}}}}},
		"scrape_configs": []any{map[string]any{
			"job_name":       m.Exporter.Job,
			"static_configs": []any{map[string]any{"targets": []string{strings.TrimPrefix(exporterURL, "http://")}, "labels": targetLabels}},
		}},
	}
}

// ready waits until every server answers /-/ready.
func ready(t *testing.T, ctx context.Context, servers ...string) {
	t.Helper()
	for _, u := range servers {
		eventually(t, ctx, "ready: "+u, func() error {
			resp, err := http.Get(u + "/-/ready")
			if err != nil {
				return err
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s", resp.Status)
			}
			return nil
		})
	}
}

// query runs an instant query on a Prometheus HTTP API (Prometheus or a Thanos querier) and
// returns each series' labels and value.
func query(server, q string) ([]result, error) {
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := getJSON(server+"/api/v1/query?query="+url.QueryEscape(q), &r); err != nil {
		return nil, err
	}
	var out []result
	for _, s := range r.Data.Result {
		v, _ := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
		out = append(out, result{labels: s.Metric, value: v})
	}
	return out, nil
}

// result is one series of a query's result.
type result struct {
	labels map[string]string
	value  float64
}

// wantSamples fails unless a query returns n series.
func wantSamples(server, q string, n int) error {
	got, err := query(server, q)
	if err != nil {
		return err
	}
	if len(got) != n {
		return fmt.Errorf("%s: %d series, want %d", q, len(got), n)
	}
	return nil
}

// faults injects the same faults into one exporter's GPUs in every run: GPU 1 falls off the
// bus, then GPUs 0 and 1 report double-bit ECC errors. The shard that scrapes the exporter
// (alertsURL: its Prometheus) fires them; the pager gets GPU 1's fall and GPU 0's errors in one
// notification, and Alertmanager holds GPU 1's errors inhibited by the fall.
func faults(t *testing.T, ctx context.Context, m *model.Model, exp *exporter, prometheus, am string, hook *webhook) {
	t.Helper()
	// GPU 1 falls off the bus first: inhibition silences only alerts that arrive while the
	// source alert is active, as in production, where group_wait covers the gap.
	t.Logf("inject: XID 79 on GPU 1 of %s", exp.gpus[1].Host)
	exp.inject(func() { exp.xid[1] = 79 })
	eventually(t, ctx, "Alertmanager has GPUFellOffBus on GPU 1", func() error {
		if !slices.Contains(amAlerts(t, am), "GPUFellOffBus/1/active") {
			return fmt.Errorf("Alertmanager has %v", amAlerts(t, am))
		}
		return nil
	})
	t.Logf("inject: double-bit ECC errors on GPUs 0 and 1")
	exp.inject(func() {
		exp.dbe[0] = 1
		exp.dbe[1] = 1
	})
	eventually(t, ctx, "Prometheus fires GPUEccDoubleBit on GPUs 0 and 1, GPUFellOffBus on GPU 1", func() error {
		got := firing(t, prometheus+"/api/v1/alerts", "GPUEccDoubleBit", "GPUFellOffBus")
		want := []string{"GPUEccDoubleBit/0", "GPUEccDoubleBit/1", "GPUFellOffBus/1"}
		if !slices.Equal(got, want) {
			return fmt.Errorf("firing %v, want %v", got, want)
		}
		return nil
	})
	pager := m.Alertmanager.Receivers["infra"]["critical"]
	eventually(t, ctx, "the pager receives GPUFellOffBus on GPU 1 and GPUEccDoubleBit on GPU 0 in one group", func() error {
		want := []string{pager + "/GPUEccDoubleBit/0", pager + "/GPUFellOffBus/1"}
		if got := hook.delivered(pager); !slices.Equal(got, want) {
			return fmt.Errorf("delivered %v, want %v", got, want)
		}
		if last := hook.last(pager); len(last.Alerts) != 2 {
			return fmt.Errorf("the last notification holds %d alerts, want the node's two", len(last.Alerts))
		}
		for _, a := range hook.last(pager).Alerts {
			if a.Labels[m.Labels.Cluster] != exp.gpus[0].Cluster {
				return fmt.Errorf("%s has %s=%q, want %q", a.Labels["alertname"], m.Labels.Cluster, a.Labels[m.Labels.Cluster], exp.gpus[0].Cluster)
			}
		}
		return nil
	})
	eventually(t, ctx, "Alertmanager holds GPUEccDoubleBit on GPU 1 inhibited by gpu-gone", func() error {
		if got := amAlerts(t, am); !slices.Contains(got, "GPUEccDoubleBit/1/suppressed") {
			return fmt.Errorf("Alertmanager has %v", got)
		}
		return nil
	})
	// Give Alertmanager a group interval to (wrongly) send the inhibited alert.
	time.Sleep(4 * time.Second)
	for _, d := range hook.delivered(pager) {
		if strings.HasSuffix(d, "/GPUEccDoubleBit/1") {
			t.Errorf("the inhibited alert was delivered: %s", d)
		}
	}
	t.Logf("delivered to the pager: %v in %d notification(s) of one group (one node)", hook.delivered(pager), hook.notifications(pager))
}

// amAlert is an alert as Alertmanager's API lists it.
type amAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Status      struct {
		State       string   `json:"state"`
		InhibitedBy []string `json:"inhibitedBy"`
	} `json:"status"`
}

// amAlertsNamed lists the alerts of one name Alertmanager holds.
func amAlertsNamed(t *testing.T, addr, name string) []amAlert {
	var alerts []amAlert
	if err := getJSON("http://"+addr+"/api/v2/alerts", &alerts); err != nil {
		t.Logf("Alertmanager: %v", err)
		return nil
	}
	return slices.DeleteFunc(alerts, func(a amAlert) bool { return a.Labels["alertname"] != name })
}

// amAlerts lists alertname/gpu/state of the alerts Alertmanager holds; suppressed means
// inhibited (or silenced: this run has no silences).
func amAlerts(t *testing.T, addr string) []string {
	var alerts []amAlert
	if err := getJSON("http://"+addr+"/api/v2/alerts", &alerts); err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, a := range alerts {
		state := a.Status.State
		if state == "suppressed" && len(a.Status.InhibitedBy) == 0 {
			state = "suppressed-not-inhibited"
		}
		out = append(out, a.Labels["alertname"]+"/"+a.Labels["gpu"]+"/"+state)
	}
	sort.Strings(out)
	return out
}

// firing lists alertname/gpu of the named alerts a rule evaluator (Prometheus, Thanos ruler)
// fires.
func firing(t *testing.T, url string, names ...string) []string {
	var r struct {
		Data struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
				State  string            `json:"state"`
			} `json:"alerts"`
		} `json:"data"`
	}
	if err := getJSON(url, &r); err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, a := range r.Data.Alerts {
		if a.State == "firing" && slices.Contains(names, a.Labels["alertname"]) {
			out = append(out, a.Labels["alertname"]+"/"+a.Labels["gpu"])
		}
	}
	sort.Strings(out)
	return out
}

// withWebhooks copies the generated Alertmanager configuration with a webhook integration
// on every receiver that notifies, pointing at the local recorder.
func withWebhooks(t *testing.T, path, url, silent string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]any
	if err := yaml.Unmarshal(data, &conf); err != nil {
		t.Fatal(err)
	}
	for _, r := range conf["receivers"].([]any) {
		r := r.(map[string]any)
		if r["name"] != silent {
			r["webhook_configs"] = []any{map[string]any{"url": url + "/" + r["name"].(string), "send_resolved": false}}
		}
	}
	out := filepath.Join(filepath.Dir(path), "alertmanager-e2e.yml")
	writeYAML(t, out, conf)
	return out
}

func writeYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
