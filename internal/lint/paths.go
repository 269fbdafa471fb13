package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ReadFile reads one input by its extension: .json is a Grafana dashboard, anything else a
// rule file.
func ReadFile(path string, data []byte) *File {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return ReadDashboard(path, data)
	}
	return ReadRules(path, data)
}

// ReadPaths reads files, and the .yaml, .yml and .json files under directories, in path order.
func ReadPaths(paths []string) ([]*File, error) {
	var names []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			names = append(names, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					found = append(found, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		names = append(names, found...)
	}
	files := make([]*File, 0, len(names))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files = append(files, ReadFile(filepath.ToSlash(name), data))
	}
	return files, nil
}
