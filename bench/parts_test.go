//go:build bench

package bench

import (
	"testing"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

func BenchmarkPartEvaluate(b *testing.B) {
	for b.Loop() {
		if _, err := catalog.Evaluate(catalog.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPartDecode(b *testing.B) {
	out, _ := catalog.Evaluate(catalog.Options{})
	for b.Loop() {
		if _, err := catalog.Decode([]byte(out)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPartPlanBuild(b *testing.B) {
	m := plantest.Plan(b, "").Model
	for b.Loop() {
		if _, err := plan.Build(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPartGenerators renders each output from one plan.
func BenchmarkPartGenerators(b *testing.B) {
	p := plantest.Plan(b, "")
	for _, g := range generators.All(generators.Options{}) {
		b.Run(g.Name, func(b *testing.B) {
			for b.Loop() {
				if _, err := g.Generate(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
