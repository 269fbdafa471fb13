package catalog

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuobs/gpuobs/libsonnet"
)

var updateCache = flag.Bool("update-cache", false, "rewrite the embedded catalog's kept evaluation")

// TestEmbeddedEvaluationIsCurrent: the evaluation of the embedded catalog kept in the binary
// is what Jsonnet makes of the sources embedded now, and says it was made from them; a source
// edited since makes Evaluate run Jsonnet instead of the kept copy (go test -update-cache
// rewrites it).
func TestEmbeddedEvaluationIsCurrent(t *testing.T) {
	fresh, err := EvaluateJsonnet(Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "libsonnet")
	if *updateCache {
		if err := os.WriteFile(filepath.Join(dir, libsonnet.EvaluatedPath), []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, libsonnet.DigestPath), []byte(libsonnet.SourcesDigest()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	cached, ok := libsonnet.Cached()
	if !ok || cached != fresh {
		t.Fatalf("the kept evaluation of the embedded catalog is stale (current digest %v): run go test ./internal/catalog -run TestEmbeddedEvaluationIsCurrent -update-cache", ok)
	}
	if got, err := Evaluate(Options{}); err != nil || got != fresh {
		t.Errorf("Evaluate does not return the kept evaluation: %v", err)
	}
}
