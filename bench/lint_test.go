//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/lint"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// ruleCorpus builds a rule file of about n realistic GPU rules: copies of the rules the
// catalog generates, each copy with its own group, recorded and alert names (and the
// references between them renamed alike).
func ruleCorpus(b *testing.B, p *plan.Plan, n int) (path string, count int) {
	files, _, err := generators.Run(p, generators.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var body []string
	for _, f := range files {
		if strings.HasPrefix(f.Path, output.RulesDir+"/") {
			text := strings.SplitN(string(f.Content), "groups:\n", 2)[1]
			body = append(body, text)
		}
	}
	one := strings.Join(body, "")
	perCopy := len(p.Recorded) + len(p.Alerts)
	recorded := regexp.MustCompile(`\b([a-z_]+):([a-z0-9_]+):([a-z0-9_]+)\b`)
	var out strings.Builder
	out.WriteString("groups:\n")
	for k := 0; count+perCopy <= n || count == 0; k++ {
		text := recorded.ReplaceAllString(one, fmt.Sprintf("${1}:${2}_c%d:${3}", k))
		text = regexp.MustCompile(`(alert: [A-Za-z]+)`).ReplaceAllString(text, fmt.Sprintf("${1}C%d", k))
		text = strings.ReplaceAll(text, "name: gpuobs-", fmt.Sprintf("name: copy%d-gpuobs-", k))
		out.WriteString(text)
		count += perCopy
	}
	path = filepath.Join(b.TempDir(), fmt.Sprintf("rules-%d.yaml", count))
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, count
}

func runTool(b *testing.B, bin string, args ...string) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.Dir = b.TempDir()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, stderr.String())
	}
}

// BenchmarkLint lints files of 4,000 and 20,000 generated GPU rules with every check, and
// runs promtool check rules and pint's offline lint on the 4,000-rule file in the same run.
func BenchmarkLint(b *testing.B) {
	p := plantest.Plan(b, "")
	for _, n := range []int{4000, 20000} {
		path, count := ruleCorpus(b, p, n)
		b.Run(fmt.Sprintf("gpuobs/rules=%d", n), func(b *testing.B) {
			problems := 0
			for b.Loop() {
				files := source.ReadPaths([]string{path})
				problems = len(lint.Run(lint.NewInputs(p, files), lint.Checks()))
			}
			b.ReportMetric(float64(count), "rules")
			b.ReportMetric(float64(problems), "problems")
		})
		if n != 4000 {
			continue
		}
		promtool, pint := testutil.Tool(b, "promtool"), testutil.Tool(b, "pint")
		b.Run(fmt.Sprintf("promtool-check-rules/rules=%d", n), func(b *testing.B) {
			for b.Loop() {
				runTool(b, promtool, "check", "rules", path)
			}
		})
		b.Run(fmt.Sprintf("pint-offline-lint/rules=%d", n), func(b *testing.B) {
			for b.Loop() {
				runTool(b, pint, "--offline", "--no-color", "lint", path)
			}
		})
	}
}

// BenchmarkLintProcess runs gpuobs lint and promtool check rules as a user does, one process
// each per run, in alternation: on the 4,000-rule file, and with GPUOBS_BENCH_RULES naming a
// directory of public rule files (the monitoring-mixins collection's, repeated to 26,000
// rules) on its rule files. It reports each one's wall time and peak memory per run, and the
// ratios, measured side by side.
func BenchmarkLintProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "gpuobs")
	build(b, bin, "../cmd/gpuobs")
	promtool := testutil.Tool(b, "promtool")
	corpus, _ := ruleCorpus(b, plantest.Plan(b, ""), 4000)
	sets := map[string][]string{"rules=4000": {corpus}}
	if dir := os.Getenv("GPUOBS_BENCH_RULES"); dir != "" {
		sets["public"] = publicRuleFiles(b, dir)
	}
	for name, files := range sets {
		b.Run(name, func(b *testing.B) {
			var lintWall, promtoolWall time.Duration
			var lintPeak, promtoolPeak int64
			for b.Loop() {
				w, peak := measureLint(b, exec.Command(bin, append([]string{"lint"}, files...)...))
				lintWall, lintPeak = lintWall+w, max(lintPeak, peak)
				w, peak = measureLint(b, exec.Command(promtool, append([]string{"check", "rules"}, files...)...))
				promtoolWall, promtoolPeak = promtoolWall+w, max(promtoolPeak, peak)
			}
			b.ReportMetric(float64(len(files)), "files")
			b.ReportMetric(lintWall.Seconds()/float64(b.N), "gpuobs-lint-s")
			b.ReportMetric(promtoolWall.Seconds()/float64(b.N), "promtool-s")
			b.ReportMetric(float64(promtoolWall)/float64(lintWall), "promtool/gpuobs")
			b.ReportMetric(float64(lintPeak)/1024, "gpuobs-lint-peak-MB")
			b.ReportMetric(float64(promtoolPeak)/1024, "promtool-peak-MB")
		})
	}
}

// publicRuleFiles lists the YAML files under dir that hold rule groups.
func publicRuleFiles(b *testing.B, dir string) []string {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte("groups:")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		b.Fatalf("GPUOBS_BENCH_RULES=%s: %v, %d rule files", dir, err, len(files))
	}
	return files
}

// measureLint runs a linter to its end and returns its wall time and peak resident memory (KB).
func measureLint(b *testing.B, cmd *exec.Cmd) (time.Duration, int64) {
	wall, usage := execute(b, cmd, 1, 3)
	return wall, usage.Maxrss
}
