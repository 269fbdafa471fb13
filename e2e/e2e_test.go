//go:build e2e

// Package e2e runs the generated rules and Alertmanager configuration in a real Prometheus and
// a real Alertmanager (built from the module proxy at the pinned versions), fed by a small
// exporter that serves series shaped like dcgm-exporter's. make e2e runs it.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/generators/alertmanager"
	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan/plantest"
	"github.com/gpuobs/gpuobs/internal/synth"
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
}

func (e *exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	write := func(metric string, l synth.Labels, v float64) {
		// Prometheus adds cluster (relabeling), job and instance.
		delete(l, e.m.Labels.Cluster)
		delete(l, "job")
		delete(l, "instance")
		fmt.Fprintf(&b, "%s %g\n", synth.Series(metric, l), v)
	}
	for i, g := range e.gpus {
		l := g.WithoutPod(e.m)
		write(e.m.Exporter.HealthField, l.With(nil), 45)
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
		Labels map[string]string `json:"labels"`
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

// delivered lists receiver/alertname/gpu of every alert notified so far.
func (h *webhook) delivered() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, n := range h.got {
		for _, a := range n.Alerts {
			out = append(out, n.Receiver+"/"+a.Labels["alertname"]+"/"+a.Labels["gpu"])
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// last is the latest notification.
func (h *webhook) last() notification {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) == 0 {
		return notification{}
	}
	return h.got[len(h.got)-1]
}

func (h *webhook) notifications() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.got)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// start runs a binary until the test ends; its output goes to a log file in dir.
func start(t *testing.T, ctx context.Context, dir, name, bin string, args ...string) {
	t.Helper()
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
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait() // killed: its exit status says so
		logFile.Close()
		if t.Failed() {
			log, _ := os.ReadFile(logFile.Name())
			t.Logf("%s log:\n%s", name, tail(string(log), 40))
		}
	})
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// eventually polls f until it returns nil or the deadline passes.
func eventually(t *testing.T, ctx context.Context, what string, f func() error) {
	t.Helper()
	begin := time.Now()
	var err error
	for {
		if err = f(); err == nil {
			t.Logf("%s after %.1fs", what, time.Since(begin).Seconds())
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: gave up after %.0fs: %v", what, time.Since(begin).Seconds(), err)
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
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	prometheusBin, alertmanagerBin := binary(t, "GPUOBS_PROMETHEUS"), binary(t, "GPUOBS_ALERTMANAGER")

	p := plantest.Plan(t, "testdata/e2e.jsonnet")
	m := p.Model
	dir := t.TempDir()
	files, managed, err := generators.Run(p, generators.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := emit.Write(dir, files, managed); err != nil {
		t.Fatal(err)
	}

	exp := &exporter{m: m, dbe: map[int]int{}, xid: map[int]int{}}
	for i := range 4 {
		exp.gpus = append(exp.gpus, synth.GPU{Cluster: cluster, Host: "gpu-node-1", Index: i, Seq: 100 + i, Model: synth.ModelName})
	}
	exporterServer := httptest.NewServer(exp)
	defer exporterServer.Close()
	hook := &webhook{logf: t.Logf}
	hookServer := httptest.NewServer(hook)
	defer hookServer.Close()

	amAddr, promAddr := freeAddr(t), freeAddr(t)
	amConfig := withWebhooks(t, filepath.Join(dir, alertmanager.ConfigFile), hookServer.URL, m.Alertmanager.SilentReceiver)
	start(t, ctx, dir, "alertmanager", alertmanagerBin,
		"--config.file="+amConfig, "--storage.path="+filepath.Join(dir, "am-data"),
		"--web.listen-address="+amAddr, "--cluster.listen-address=")
	promConfig := filepath.Join(dir, "prometheus.yml")
	writeYAML(t, promConfig, map[string]any{
		"global":     map[string]any{"scrape_interval": "1s", "evaluation_interval": "1s"},
		"rule_files": []string{filepath.Join(dir, rules.RecordingFile), filepath.Join(dir, rules.AlertsFile)},
		"alerting":   map[string]any{"alertmanagers": []any{map[string]any{"static_configs": []any{map[string]any{"targets": []string{amAddr}}}}}},
		"scrape_configs": []any{map[string]any{
			"job_name":       m.Exporter.Job,
			"static_configs": []any{map[string]any{"targets": []string{strings.TrimPrefix(exporterServer.URL, "http://")}, "labels": map[string]string{m.Labels.Cluster: cluster}}},
		}},
	})
	start(t, ctx, dir, "prometheus", prometheusBin,
		"--config.file="+promConfig, "--storage.tsdb.path="+filepath.Join(dir, "prom-data"),
		"--web.listen-address="+promAddr)
	for _, u := range []string{"http://" + promAddr + "/-/ready", "http://" + amAddr + "/-/ready"} {
		eventually(t, ctx, "ready: "+u, func() error {
			resp, err := http.Get(u)
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
	// A healthy baseline, so that the counters have history.
	eventually(t, ctx, "four GPUs scraped", func() error {
		var r struct {
			Data struct {
				Result []any `json:"result"`
			} `json:"data"`
		}
		if err := getJSON("http://"+promAddr+"/api/v1/query?query="+m.Exporter.HealthField, &r); err != nil {
			return err
		}
		if len(r.Data.Result) != 4 {
			return fmt.Errorf("%d series", len(r.Data.Result))
		}
		return nil
	})
	time.Sleep(3 * time.Second)

	// GPU 1 falls off the bus first: inhibition silences only alerts that arrive while the
	// source alert is active, as in production, where group_wait covers the gap.
	t.Logf("inject: XID 79 on GPU 1")
	exp.inject(func() { exp.xid[1] = 79 })
	eventually(t, ctx, "Alertmanager has GPUFellOffBus on GPU 1", func() error {
		if !slices.Contains(amAlerts(t, amAddr), "GPUFellOffBus/1/active") {
			return fmt.Errorf("Alertmanager has %v", amAlerts(t, amAddr))
		}
		return nil
	})
	t.Logf("inject: double-bit ECC errors on GPUs 0 and 1")
	exp.inject(func() {
		exp.dbe[0] = 1
		exp.dbe[1] = 1
	})
	eventually(t, ctx, "Prometheus fires GPUEccDoubleBit on GPUs 0 and 1, GPUFellOffBus on GPU 1", func() error {
		got := firing(t, "http://"+promAddr+"/api/v1/alerts")
		want := []string{"GPUEccDoubleBit/0", "GPUEccDoubleBit/1", "GPUFellOffBus/1"}
		if !slices.Equal(got, want) {
			return fmt.Errorf("firing %v, want %v", got, want)
		}
		return nil
	})
	pager := m.Alertmanager.Receivers["infra"]["critical"]
	eventually(t, ctx, "the pager receives GPUFellOffBus on GPU 1 and GPUEccDoubleBit on GPU 0 in one group", func() error {
		want := []string{pager + "/GPUEccDoubleBit/0", pager + "/GPUFellOffBus/1"}
		if got := hook.delivered(); !slices.Equal(got, want) {
			return fmt.Errorf("delivered %v, want %v", got, want)
		}
		if last := hook.last(); len(last.Alerts) != 2 {
			return fmt.Errorf("the last notification holds %d alerts, want the node's two", len(last.Alerts))
		}
		return nil
	})
	eventually(t, ctx, "Alertmanager holds GPUEccDoubleBit on GPU 1 inhibited by gpu-gone", func() error {
		if got := amAlerts(t, amAddr); !slices.Contains(got, "GPUEccDoubleBit/1/suppressed") {
			return fmt.Errorf("Alertmanager has %v", got)
		}
		return nil
	})
	// Give Alertmanager a group interval to (wrongly) send the inhibited alert.
	time.Sleep(4 * time.Second)
	for _, d := range hook.delivered() {
		if strings.HasSuffix(d, "/GPUEccDoubleBit/1") {
			t.Errorf("the inhibited alert was delivered: %s", d)
		}
	}
	t.Logf("delivered: %v in %d notification(s) of one group (one node)", hook.delivered(), hook.notifications())
}

// amAlerts lists alertname/gpu/state of the alerts Alertmanager holds; suppressed means
// inhibited (or silenced: this run has no silences).
func amAlerts(t *testing.T, addr string) []string {
	var alerts []struct {
		Labels map[string]string `json:"labels"`
		Status struct {
			State       string   `json:"state"`
			InhibitedBy []string `json:"inhibitedBy"`
		} `json:"status"`
	}
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

// firing lists alertname/gpu of the alerts Prometheus fires.
func firing(t *testing.T, url string) []string {
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
		if a.State == "firing" {
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
