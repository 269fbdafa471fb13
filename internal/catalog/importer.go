package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	jsonnet "github.com/google/go-jsonnet"
)

// embeddedPrefix marks files of the embedded catalog in jsonnet error positions.
const embeddedPrefix = "embedded:libsonnet/"

// importer resolves Jsonnet imports exactly, in two places only: a file of the embedded
// catalog imports relative to itself inside the embedded tree; a user file imports relative to
// its own directory on disk and, when no such file exists, from the embedded tree's root (so
// `import 'gpuobs.libsonnet'` reaches the library). There is no search path.
type importer struct {
	embedded fs.FS
	// entry is the file evaluation starts from; go-jsonnet reports its imports as coming
	// from "".
	entry string
	cache map[string]jsonnet.Contents
}

func newImporter(embedded fs.FS, entry string) *importer {
	return &importer{embedded: embedded, entry: entry, cache: map[string]jsonnet.Contents{}}
}

// Import implements jsonnet.Importer.
func (im *importer) Import(importedFrom, importedPath string) (jsonnet.Contents, string, error) {
	if importedFrom == "" {
		importedFrom = im.entry
	}
	if strings.HasPrefix(importedFrom, embeddedPrefix) {
		rel := path.Join(path.Dir(strings.TrimPrefix(importedFrom, embeddedPrefix)), importedPath)
		return im.readEmbedded(rel, importedPath)
	}
	candidate := importedPath
	if !filepath.IsAbs(candidate) {
		candidate = filepath.Join(filepath.Dir(importedFrom), importedPath)
	}
	if c, ok := im.cache[candidate]; ok {
		return c, candidate, nil
	}
	data, err := os.ReadFile(candidate)
	switch {
	case err == nil:
		c := jsonnet.MakeContentsRaw(data)
		im.cache[candidate] = c
		return c, candidate, nil
	case errors.Is(err, fs.ErrNotExist):
		return im.readEmbedded(path.Clean(filepath.ToSlash(importedPath)), importedPath)
	default:
		return jsonnet.Contents{}, "", err
	}
}

func (im *importer) readEmbedded(rel, asWritten string) (jsonnet.Contents, string, error) {
	foundAt := embeddedPrefix + rel
	if c, ok := im.cache[foundAt]; ok {
		return c, foundAt, nil
	}
	if !fs.ValidPath(rel) {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: not found next to the importing file nor in the embedded catalog", asWritten)
	}
	data, err := fs.ReadFile(im.embedded, rel)
	if err != nil {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: not found next to the importing file nor in the embedded catalog", asWritten)
	}
	c := jsonnet.MakeContentsRaw(data)
	im.cache[foundAt] = c
	return c, foundAt, nil
}
