package bench

import (
	"testing"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/internal/catalog"
)

func BenchmarkPartEvaluate(b *testing.B) {
	for b.Loop() {
		if _, err := catalog.Evaluate(""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPartDecode(b *testing.B) {
	out, _ := catalog.Evaluate("")
	for b.Loop() {
		if _, err := catalog.Decode([]byte(out)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPartGenerators(b *testing.B) {
	m, _ := catalog.Load(catalog.Options{})
	for b.Loop() {
		if _, _, err := generators.Run(m, generators.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPartRulesBuild(b *testing.B) {
	m, _ := catalog.Load(catalog.Options{})
	for b.Loop() {
		rules.Build(m)
	}
}

func BenchmarkPartRulesGenerate(b *testing.B) {
	m, _ := catalog.Load(catalog.Options{})
	for b.Loop() {
		rules.Generate(m)
	}
}

func BenchmarkPartTestsGenerate(b *testing.B) {
	m, _ := catalog.Load(catalog.Options{})
	for b.Loop() {
		promtooltests.Generate(m)
	}
}
