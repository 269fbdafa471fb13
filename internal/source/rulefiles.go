package source

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/output"
)

// RuleFiles lists the rule files under an output directory's rules/ (slash-separated,
// relative to it; the formats that repeat the plain files left out) in evaluation order: the
// global layer's after the shard's, and in each directory recording rules before the alerts
// that read them (as gpuobs' promtool tests load them).
func RuleFiles(dir string) ([]string, error) {
	var out []string
	root := filepath.Join(dir, output.RulesDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && slices.Contains(output.RepeatedRuleFormats, d.Name()) {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return evaluationOrder(out[i]) < evaluationOrder(out[j]) })
	return out, err
}

// evaluationOrder sorts a rule file: global layer last, recording rules first in a directory.
func evaluationOrder(rel string) string {
	dir, name := path.Split(rel)
	layer := "0"
	if strings.HasSuffix(dir, "/global/") {
		layer = "1"
	}
	kind := "1"
	if strings.HasPrefix(name, "recording") {
		kind = "0"
	}
	return layer + dir + kind + name
}
