package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/gpuobs/gpuobs/internal/kept"
	"github.com/gpuobs/gpuobs/libsonnet"
)

// A catalog's evaluation is kept between runs in a cache directory, as Go keeps builds: under
// a key made of what gpuobs evaluates with (the embedded sources, go-jsonnet's version) and the
// catalog file asked for, with the list of every file on disk the evaluation looked for and
// the digest of what it read there (or that it was absent). A kept evaluation is used only
// while each of those files is what it was, read under the same confinement rules as an
// evaluation: an edit, a new file that an import would now find, or a link out of the tree
// makes gpuobs evaluate again. Evaluations that fail are never kept.

// CacheEnv chooses where evaluations are kept: a directory, or "off" for nowhere.
const CacheEnv = "GPUOBS_CACHE"

// maxKept is how many evaluations a cache directory holds; the least recently used go first.
// An evaluation is compact, about 0.8 MB for the embedded catalog, kept under one or two names
// (keep) that count once: at most about 200 MB. gpuobs' own tests evaluate about 190
// catalogs, and share one directory (testcatalog.CacheDir): fewer would evict each other
// within one run, and each run would evaluate again what the last one kept.
const maxKept = 256

// cacheFormat changes whenever an entry's layout or the key's parts change.
const cacheFormat = "gpuobs-catalog-evaluation-v2"

// DefaultCacheDir is where the gpuobs command keeps evaluations: $GPUOBS_CACHE; under a
// pre-commit hook (PRE_COMMIT=1), gpuobs/catalog in pre-commit's own home ($PRE_COMMIT_HOME,
// else pre-commit's default, $XDG_CACHE_HOME/pre-commit or ~/.cache/pre-commit), which CI
// keeps between runs to reuse the hooks' environments; else gpuobs/catalog in the user's cache
// directory. "" (keep none) for GPUOBS_CACHE=off or without a home.
func DefaultCacheDir() string {
	switch dir := os.Getenv(CacheEnv); dir {
	case "off":
		return ""
	case "":
		if os.Getenv("PRE_COMMIT") == "1" {
			if home := preCommitHome(); home != "" {
				return filepath.Join(home, "gpuobs", "catalog")
			}
		}
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "gpuobs", "catalog")
	default:
		return dir
	}
}

// preCommitHome is where pre-commit keeps its environments, as pre-commit finds it.
func preCommitHome() string {
	if home := os.Getenv("PRE_COMMIT_HOME"); home != "" {
		return home
	}
	if xdg := os.Getenv("XDG_CACHE_HOME"); xdg != "" {
		return filepath.Join(xdg, "pre-commit")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "pre-commit")
	}
	return ""
}

// fileRead is one file on disk an evaluation looked for: its path and the SHA-256 of what it
// read, empty when the file was not there. Kept, the path is relative to the import root
// where it lies under it (always, but through a link in the root's own path).
type fileRead struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	// Pinned is a file the catalog imports by its absolute path: its evaluation holds only
	// where the catalog is now.
	Pinned bool `json:"pinned,omitempty"`
}

// readOf records that file held data, by its absolute path.
func readOf(file string, data []byte) fileRead {
	return fileRead{Path: absolute(file), SHA256: digest(data)}
}

// digest is the SHA-256 of data, in hexadecimal.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// absent records that an evaluation looked for file and found none.
func absent(file string) fileRead { return fileRead{Path: absolute(file)} }

func absolute(file string) string {
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return file
}

// cacheKey names an entry of a catalog in opts.CacheDir; "" when nothing is kept. A catalog
// file is named by its path under the import root and its content, and, pinned, by the root's
// absolute path too. An evaluation is kept under its pinned key, and, where it holds wherever
// the tree lies (relocatable), under the other as well: the same tree elsewhere (a fresh clone,
// another CI workspace) finds it and reads its files where the tree is now, and two trees whose
// catalog files are alike but whose imports differ each keep their own in place.
func cacheKey(opts Options, pinned bool) string {
	if opts.CacheDir == "" {
		return ""
	}
	h := sha256.New()
	for _, part := range []string{cacheFormat, jsonnetVersion(), libsonnet.SourcesDigest()} {
		h.Write([]byte(part + "\x00"))
	}
	if opts.ConfigPath != "" {
		root, err := importRoot(opts.ConfigPath, opts.ImportRoot)
		if err != nil {
			return ""
		}
		config, err := filepath.Rel(root, absolute(opts.ConfigPath))
		if err != nil || newImporter(libsonnet.FS, opts.ConfigPath, root).confined(opts.ConfigPath) != nil {
			return ""
		}
		data, err := os.ReadFile(opts.ConfigPath)
		if err != nil {
			return ""
		}
		h.Write([]byte(filepath.ToSlash(config) + "\x00" + digest(data) + "\x00"))
		if pinned {
			h.Write([]byte(root + "\x00"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// relocatable returns reads with their paths relative to root, and whether the evaluation
// holds wherever the tree lies: no file imported by its absolute path, every file under root
// as written, and the output without the root's path in it.
func relocatable(reads []fileRead, root, out string) ([]fileRead, bool) {
	moves := root == "" || !strings.Contains(out, root)
	relative := make([]fileRead, len(reads))
	for i, r := range reads {
		relative[i] = r
		rel, err := filepath.Rel(root, r.Path)
		if r.Pinned || err != nil || !filepath.IsLocal(rel) {
			moves = false
			continue
		}
		relative[i].Path = filepath.ToSlash(rel)
	}
	return relative, moves
}

// jsonnetVersion is the version of go-jsonnet this program was built with.
func jsonnetVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/google/go-jsonnet" {
			return dep.Version + dep.Sum
		}
	}
	return ""
}

// lookup returns the evaluation kept under key when every file it read is unchanged.
func lookup(opts Options, key string) (string, bool) {
	if key == "" {
		return "", false
	}
	file := filepath.Join(opts.CacheDir, key)
	if !kept.Used(file) {
		return "", false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	header, body, ok := bytes.Cut(data, []byte("\n"))
	var reads []fileRead
	if !ok || json.Unmarshal(header, &reads) != nil || !unchanged(opts, reads) {
		return "", false
	}
	return string(body), true
}

// unchanged reports whether each file an evaluation read is still what it read, found
// under the rules of an evaluation's imports.
func unchanged(opts Options, reads []fileRead) bool {
	if len(reads) == 0 {
		return opts.ConfigPath == ""
	}
	root, err := importRoot(opts.ConfigPath, opts.ImportRoot)
	if err != nil {
		return false
	}
	im := newImporter(libsonnet.FS, opts.ConfigPath, root)
	for _, r := range reads {
		path := r.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, filepath.FromSlash(path))
		}
		err := im.confined(path)
		if r.SHA256 == "" {
			if !errors.Is(err, fs.ErrNotExist) {
				return false
			}
			continue
		}
		if err != nil {
			return false
		}
		data, err := os.ReadFile(path)
		if err != nil || digest(data) != r.SHA256 {
			return false
		}
	}
	return true
}

// keep writes an evaluation and the files it read under its key (cacheKey: the key that
// moves with the tree where the evaluation allows), atomically, and prunes the
// directory to maxKept entries. A cache that cannot be written is no error: the next run
// evaluates again.
func keep(opts Options, reads []fileRead, out string) {
	root := ""
	if opts.ConfigPath != "" {
		var err error
		if root, err = importRoot(opts.ConfigPath, opts.ImportRoot); err != nil {
			return
		}
	}
	reads, moves := relocatable(reads, root, out)
	key := cacheKey(opts, true)
	if key == "" {
		return
	}
	if err := os.MkdirAll(opts.CacheDir, 0o700); err != nil {
		return
	}
	header, err := json.Marshal(reads)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(opts.CacheDir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(append(header, '\n'), out...))
	entry := filepath.Join(opts.CacheDir, key)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), entry) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	// The same entry under the key a copy of the tree looks for: a second name, not a copy.
	if anywhere := cacheKey(opts, false); moves && anywhere != key {
		link := filepath.Join(opts.CacheDir, ".tmp-link-"+anywhere)
		if os.Link(entry, link) == nil && os.Rename(link, filepath.Join(opts.CacheDir, anywhere)) != nil {
			_ = os.Remove(link)
		}
	}
	kept.Prune(opts.CacheDir, maxKept)
}
