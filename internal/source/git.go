package source

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/gitcmd"
	"github.com/gpuobs/gpuobs/internal/output"
)

// FromGit writes the output directory dir as it is at a git ref into a new temporary
// directory, with git archive; remove is to be called when done. Only regular files under the
// directories its readers read (output.ReadDirs) are written, each at a path inside the
// temporary directory.
func FromGit(dir, ref string) (tmp string, remove func(), err error) {
	commit, err := gitcmd.Commit(dir, ref)
	if err != nil {
		return "", nil, err
	}
	tmp, err = os.MkdirTemp("", "gpuobs-diff-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { _ = os.RemoveAll(tmp) } // a temporary directory: nothing to do if it stays
	// git archive runs at the top of the work tree (in a subdirectory it keeps only the paths
	// under that subdirectory, relative to the tree it archives) on the directory's tree.
	where, err := gitcmd.Run(dir, "rev-parse", "--show-toplevel", "--show-prefix")
	lines := strings.Split(string(where), "\n")
	if err != nil || len(lines) < 2 {
		remove()
		return "", nil, fmt.Errorf("%s is not in a git work tree", dir)
	}
	cmd := exec.Command("git", "-C", lines[0], "archive", "--format=tar", commit+":"+lines[1])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		remove()
		return "", nil, err
	}
	// The archive streams: files outside the compared directories are read past, not kept.
	err = extract(tar.NewReader(stdout), tmp)
	if _, drainErr := io.Copy(io.Discard, stdout); err == nil {
		err = drainErr // the rest of the archive, so that git exits
	}
	if waitErr := cmd.Wait(); waitErr != nil {
		err = fmt.Errorf("%v: %s", waitErr, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("git archive %s of %s: %w", ref, dir, err)
	}
	return tmp, remove, nil
}

// ChangedSince lists the files under dir that differ between the commit a git ref names and
// the work tree (changed by later commits, staged or not; untracked files are not listed),
// each relative to dir, cleaned and slash-separated. A ref that names no commit of the
// repository is refused as gitcmd.Commit refuses it; a failing git diff is an error that
// names the ref.
func ChangedSince(dir, ref string) (map[string]bool, error) {
	commit, err := gitcmd.Commit(dir, ref)
	if err != nil {
		return nil, err
	}
	// -z: names as they are, not split at spaces nor quoted by core.quotePath.
	out, err := gitcmd.Run(dir, "diff", "--name-only", "--relative", "-z", commit, "--")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	changed := map[string]bool{}
	for name := range strings.SplitSeq(string(out), "\x00") {
		if name != "" {
			changed[path.Clean(name)] = true
		}
	}
	return changed, nil
}

// extract writes the compared regular files of a tar stream under dir.
func extract(tr *tar.Reader, dir string) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		top, _, _ := strings.Cut(name, "/")
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(name) || !slices.Contains(output.ReadDirs, top) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
}
