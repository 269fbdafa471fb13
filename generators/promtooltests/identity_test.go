package promtooltests_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestAddingACaseChangesOnlyItsLines: a scenario's cluster, host, GPU UUIDs and exporter
// address follow its alert's and its own name, not its position, so a case added to an alert
// adds the lines of its own series and expectations and changes no other line of the test
// file. On the embedded catalog and the adopter's (renamed labels and teams, sections off).
func TestAddingACaseChangesOnlyItsLines(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"(import 'gpuobs.libsonnet')", "(import 'adopter.jsonnet')"} {
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			write := func(override string) string {
				return plantest.Catalog(t, "local t = import 'lib/test.libsonnet';\n"+base+" { "+override+" }\n")
			}
			// A case early in the alert's list would have moved every later case before.
			added := `alerts+: { GPUTemperatureHigh+: { tests: [t.case('added: heat from the start', true, [t.series('DCGM_FI_DEV_GPU_TEMP', '99x60')], value=99, health=false)] + super.tests } }`
			before := alertTestLines(t, write(""))
			after := alertTestLines(t, write(added))
			scenario := "gputemperaturehigh-added-heat-from-the-start"
			i := 0
			var new []string
			for _, line := range after {
				if i < len(before) && line == before[i] {
					i++
					continue
				}
				new = append(new, line)
			}
			if i < len(before) {
				t.Fatalf("a line of the test file changed or went: %q", before[i])
			}
			if len(new) == 0 {
				t.Fatal("the added case added no line")
			}
			for _, line := range new {
				if strings.Contains(line, "cluster=") || strings.Contains(line, `"cluster"`) {
					if !strings.Contains(line, scenario) {
						t.Errorf("an added line is not the new scenario's: %s", line)
					}
				}
			}
		})
	}
}

// alertTestLines generates a catalog's alert scenarios and returns the test file's lines.
func alertTestLines(t *testing.T, config string) []string {
	t.Helper()
	files, err := Generate(plantest.Plan(t, config))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == output.AlertTests {
			return strings.Split(string(f.Content), "\n")
		}
	}
	t.Fatalf("no %s generated", output.AlertTests)
	return nil
}

// TestCasesNeedNamesOfTheirOwn: two cases of an alert whose names make the same scenario name
// would share a cluster; generation refuses, naming both.
func TestCasesNeedNamesOfTheirOwn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	text := `local t = import 'lib/test.libsonnet';
(import 'gpuobs.libsonnet') { alerts+: { GPUTemperatureHigh+: { tests+: [t.case('Two-minute blip!', false, [], health=false)] } } }
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Generate(plantest.Plan(t, path))
	if err == nil || !strings.Contains(err.Error(), `"two-minute blip" and "Two-minute blip!"`) {
		t.Errorf("want both cases named, got %v", err)
	}
}
