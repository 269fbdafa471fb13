package runbooks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// root is the repository root, where the generated output is checked in.
const root = "../.."

type alertRule struct {
	Alert       string            `yaml:"alert"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// checkedInAlerts reads the alerts of the checked-in rule file.
func checkedInAlerts(t *testing.T) []alertRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "rules/alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var out []alertRule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) == 0 {
		t.Fatal("rules/alerts.yaml holds no alerts")
	}
	return out
}

// TestEveryAlertIsComplete holds the generated files to the contract: every alert has a tier,
// an owner, the three annotations, and a runbook page at its runbook_url.
func TestEveryAlertIsComplete(t *testing.T) {
	m, err := catalog.Load(catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]bool{}
	for _, a := range checkedInAlerts(t) {
		switch a.Labels["severity"] {
		case "critical", "warning", "info":
		default:
			t.Errorf("%s: severity %q is not critical, warning or info", a.Alert, a.Labels["severity"])
		}
		if a.Labels["team"] == "" {
			t.Errorf("%s: no team label", a.Alert)
		}
		for _, key := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(a.Annotations[key]) == "" {
				t.Errorf("%s: annotation %s is empty", a.Alert, key)
			}
		}
		if want := m.Runbooks.BaseURL + a.Alert + ".md"; a.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", a.Alert, a.Annotations["runbook_url"], want)
		}
		page, err := os.ReadFile(filepath.Join(root, output.Runbook(a.Alert)))
		if err != nil {
			t.Errorf("%s: no runbook page: %v", a.Alert, err)
			continue
		}
		pages[output.Runbook(a.Alert)] = true
		for _, heading := range []string{"# " + a.Alert + "\n", "## What it means", "## First look", "## Mitigation", "## Escalation"} {
			if !strings.Contains(string(page), heading) {
				t.Errorf("%s: runbook page lacks %q", a.Alert, strings.TrimSpace(heading))
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, output.RunbooksDir, "*.md"))
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		if !pages[filepath.ToSlash(rel)] {
			t.Errorf("%s has no alert", rel)
		}
	}
}

var (
	promqlBlock = regexp.MustCompile("(?s)```promql\n(.*?)\n```")
	variable    = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)
)

// TestFirstLookQueriesParse checks that every query on every page is PromQL once the alert's
// label values are filled in.
func TestFirstLookQueriesParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, output.RunbooksDir, "*.md"))
	if len(files) == 0 {
		t.Fatal("no runbook pages")
	}
	for _, f := range files {
		page, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(page), "<!-- "+output.Header) {
			t.Errorf("%s lacks the generated-file header", f)
		}
		blocks := promqlBlock.FindAllStringSubmatch(string(page), -1)
		if len(blocks) < 2 {
			t.Errorf("%s: %d PromQL blocks, want first-look queries and the rule", f, len(blocks))
		}
		for _, b := range blocks {
			if _, err := promql.Canonical(variable.ReplaceAllString(b[1], "value")); err != nil {
				t.Errorf("%s: %v\n%s", f, err, b[1])
			}
		}
	}
}

var (
	mermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)\n```")
	mermaidNode  = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)[\[{(]`)
	mermaidEdge  = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)(?:\(\[[^\]]*\]\))? --(?: [a-z]+ --)?> ([A-Za-z0-9_]+)`)
)

// TestEveryCheckOfAFlowchartIsReachable reads the diagnosis flowchart of every checked-in
// runbook and walks it from the start: every node is reached.
func TestEveryCheckOfAFlowchartIsReachable(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, output.RunbooksDir, "*.md"))
	charts := 0
	for _, f := range files {
		page, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		block := mermaidBlock.FindStringSubmatch(string(page))
		if block == nil {
			continue
		}
		charts++
		nodes, edges := map[string]bool{}, map[string][]string{}
		for _, line := range strings.Split(block[1], "\n") {
			if e := mermaidEdge.FindStringSubmatch(line); e != nil {
				edges[e[1]] = append(edges[e[1]], e[2])
				nodes[e[2]] = true
			} else if n := mermaidNode.FindStringSubmatch(line); n != nil {
				nodes[n[1]] = true
			}
		}
		reached := map[string]bool{}
		var walk func(string)
		walk = func(n string) {
			if !reached[n] {
				reached[n] = true
				for _, to := range edges[n] {
					walk(to)
				}
			}
		}
		walk("start")
		for n := range nodes {
			if !reached[n] {
				t.Errorf("%s: %s cannot be reached from the start", filepath.Base(f), n)
			}
		}
	}
	if charts == 0 {
		t.Fatal("no flowchart read")
	}
}

func TestFlowchartEscapesLabels(t *testing.T) {
	got := flowchart([]model.Step{{Check: `Is "x" > 1 in ` + "`nvidia-smi`?", Yes: "drain"}}, "infra")
	for _, want := range []string{`s0{"Is #quot;x#quot; #gt; 1 in nvidia-smi?"}`, `s0 -- yes --> y0["drain"]`, `s0 -- no --> escalate["Escalate: infra"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("flowchart lacks %s:\n%s", want, got)
		}
	}
}

// TestSmallCatalog shows the output on the small fixture catalog (go test -update rewrites it).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t))
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}

// TestHTMLFromTheCatalogIsShown: on the adopter's catalog (its own labels and teams), raw HTML
// in an alert's summary, meaning and mitigation is written as text: a comment cannot hide the
// rest of the page, a tag cannot run; the mitigation's code span is kept as code.
func TestHTMLFromTheCatalogIsShown(t *testing.T) {
	p := plantest.Plan(t, plantest.Catalog(t, `(import 'adopter.jsonnet') {
  alerts+: { GPUTemperatureHigh+: {
    summary: 'GPU hot <!-- the rest is hidden',
    runbook+: { meaning: '<img src=x onerror="alert(1)">', mitigation: ['run `+"`"+`nvidia-smi -q | grep <Temp>`+"`"+` <b>now</b>'] },
  } },
}`))
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	var page string
	for _, f := range files {
		if f.Path == output.Runbook("GPUTemperatureHigh") {
			page = string(f.Content)
		}
	}
	for _, want := range []string{"GPU hot &lt;!-- the rest is hidden", `&lt;img src=x onerror="alert(1)">`, "1. run `nvidia-smi -q | grep <Temp>` &lt;b>now&lt;/b>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if n := strings.Count(page, "<!--"); n != 1 {
		t.Errorf("%d HTML comments, want only the header's", n)
	}
}

// TestExternalClusterQueries: where each cluster's Prometheus names the cluster only as an
// external label (on the adopter's catalog, which calls it k8s_cluster), the first-look
// queries select no cluster (its series carry none, so the matcher would select nothing),
// still parse, and the page says where to run them.
func TestExternalClusterQueries(t *testing.T) {
	p := plantest.Plan(t, "../../internal/testutil/plantest/testdata/external-cluster.jsonnet")
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Model.Labels.Cluster
	matcher := c + `="$` + c + `"`
	queries := 0
	for _, f := range files {
		page := string(f.Content)
		if !strings.Contains(page, "The series carry no `"+c+"` label") {
			t.Errorf("%s does not say where to run its queries", f.Path)
		}
		for _, b := range promqlBlock.FindAllStringSubmatch(page, -1) {
			queries++
			if strings.Contains(b[1], matcher) {
				t.Errorf("%s: a query selects %s:\n%s", f.Path, matcher, b[1])
			}
			if _, err := promql.Canonical(variable.ReplaceAllString(b[1], "value")); err != nil {
				t.Errorf("%s: %v\n%s", f.Path, err, b[1])
			}
		}
	}
	if queries == 0 {
		t.Fatal("no queries")
	}
	plain := plantest.Plan(t, "../../internal/testutil/plantest/testdata/adopter.jsonnet")
	before, err := Generate(plain)
	if err != nil {
		t.Fatal(err)
	}
	selecting := 0
	for _, f := range before {
		selecting += strings.Count(string(f.Content), matcher)
	}
	if selecting == 0 {
		t.Errorf("the adopter's own runbooks select no %s: the test shows nothing", matcher)
	}
}
