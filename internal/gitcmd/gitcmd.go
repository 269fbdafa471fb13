// Package gitcmd runs git for gpuobs: refs from users are verified before any other git
// command sees them, and git's own message is part of every error.
package gitcmd

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// Run runs git with args in dir and returns its standard output; a failure carries git's
// standard error.
func Run(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

// Commit resolves a ref a user gave (a branch, tag, or commit) to the commit it names, as git
// reads it after --end-of-options: a ref that looks like an option (--output=FILE) is a ref
// that does not exist, never an option. Later git commands take the commit, not the ref.
func Commit(dir, ref string) (string, error) {
	out, err := Run(dir, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		hint := ""
		if o, e := Run(dir, "rev-parse", "--is-shallow-repository"); e == nil && strings.TrimSpace(string(o)) == "true" {
			hint = "; this is a shallow clone: fetch the ref first (git fetch origin <ref>, or fetch-depth: 0 with actions/checkout)"
		}
		return "", fmt.Errorf("%q is not a commit of this repository (%v)%s", ref, err, hint)
	}
	return strings.TrimSpace(string(out)), nil
}
