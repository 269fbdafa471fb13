package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/storage"

	"github.com/gpuobs/gpuobs/internal/promql/replay"
)

// TestGroupsInWrittenOrder: the rule manager hands groups back in a map; replay evaluates them
// as written (files in the order given, groups in file order), so that a record is evaluated
// before an alert of a later group reads it, on every run. Group names run against the
// alphabet so that neither map nor name order passes.
func TestGroupsInWrittenOrder(t *testing.T) {
	var want []string
	var files []string
	for f := range 2 {
		var b strings.Builder
		b.WriteString("groups:\n")
		for g := 19; g >= 0; g-- {
			name := fmt.Sprintf("f%d-g%02d", f, g)
			want = append(want, name)
			fmt.Fprintf(&b, "  - name: %s\n    rules:\n      - record: r:%s:x\n        expr: vector(1)\n", name, strings.ReplaceAll(name, "-", "_"))
		}
		path := filepath.Join(t.TempDir(), fmt.Sprintf("f%d.yaml", f))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	groups, err := replay.LoadGroups(storage.QueryableFunc(nil), nil, time.Minute, files...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, g.Name())
	}
	if !slices.Equal(got, want) {
		t.Errorf("groups in order %v, want %v", got, want)
	}
}
