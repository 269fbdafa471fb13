package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	jsonnet "github.com/google/go-jsonnet"
)

// embeddedPrefix marks files of the embedded catalog in jsonnet error positions.
const embeddedPrefix = "embedded:libsonnet/"

// importer resolves Jsonnet imports exactly, in two places only: a file of the embedded
// catalog imports relative to itself inside the embedded tree; a user file imports relative to
// its own directory on disk and, when no such file exists, from the embedded tree's root (so
// `import 'gpuobs.libsonnet'` reaches the library). There is no search path.
//
// A file on disk is read only when it lies under root (the catalog's own directory unless
// widened), after symbolic links are resolved: an absolute path or a ../ escape elsewhere is an
// error that names the import and never shows the file.
type importer struct {
	embedded fs.FS
	// entry is the file evaluation starts from; go-jsonnet reports its imports as coming
	// from "".
	entry string
	// root is the absolute directory, symbolic links resolved, that files may be read from.
	root  string
	cache map[string]jsonnet.Contents
	// reads is every file on disk the evaluation looked for, in order: what a kept
	// evaluation is checked against (see evalcache.go).
	reads []fileRead
}

func newImporter(embedded fs.FS, entry, root string) *importer {
	return &importer{embedded: embedded, entry: entry, root: root, cache: map[string]jsonnet.Contents{}}
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
	if err := im.confined(candidate); err != nil {
		if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(importedPath) && !strings.HasPrefix(filepath.ToSlash(importedPath), "../") {
			im.reads = append(im.reads, absent(candidate))
			return im.readEmbedded(path.Clean(filepath.ToSlash(importedPath)), importedPath)
		}
		if errors.Is(err, errOutsideRoot) {
			return jsonnet.Contents{}, "", fmt.Errorf("import %q: %w %s; a catalog reads only files under its own directory and the embedded library (--import-root widens that)", importedPath, err, im.root)
		}
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: %w", importedPath, err)
	}
	data, err := os.ReadFile(candidate)
	if err != nil {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: %w", importedPath, err)
	}
	read := readOf(candidate, data)
	read.Pinned = filepath.IsAbs(importedPath)
	im.reads = append(im.reads, read)
	c := jsonnet.MakeContentsRaw(data)
	im.cache[candidate] = c
	return c, candidate, nil
}

// errOutsideRoot is an import of a file that is not under the import root.
var errOutsideRoot = errors.New("is outside")

// confined checks that a file exists, is a regular file, and lies under the root once
// symbolic links are resolved.
func (im *importer) confined(file string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if !within(im.root, abs) {
		return errOutsideRoot
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	if !within(im.root, resolved) {
		return errOutsideRoot
	}
	if dir := versionControlDir(im.root, resolved); dir != "" {
		return fmt.Errorf("is inside %s: a catalog never reads version control's directories (a checkout keeps credentials there)", dir)
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return errors.New("is not a regular file")
	}
	return nil
}

// versionControlDirs are the directories version control keeps its data (and a CI checkout
// its credentials) in.
var versionControlDirs = []string{".git", ".hg", ".svn", ".jj"}

// versionControlDir names the version-control directory on the way from root to path, or "".
func versionControlDir(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return ""
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if slices.Contains(versionControlDirs, part) {
			return part
		}
	}
	return ""
}

// within reports whether path lies under dir (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// importRoot is the directory a catalog may import from: root if given, else the catalog's own
// directory; absolute, symbolic links resolved.
func importRoot(configPath, root string) (string, error) {
	if root == "" {
		root = filepath.Dir(configPath)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
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
