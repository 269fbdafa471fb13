package gpuobs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/plan/plantest"
)

// TestReadmeCountsAreTrue: the rule and alert counts the README gives are the embedded
// catalog's.
func TestReadmeCountsAreTrue(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, "")
	derived := 0
	for _, r := range p.Recorded {
		if !r.FromCatalog {
			derived++
		}
	}
	want := fmt.Sprintf("The embedded catalog records %d recording rules (%d derived, %d declared in records) and %d alerts", len(p.Recorded), derived, len(p.Recorded)-derived, len(p.Alerts))
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
}
