// Package source reads what gpuobs or a user wrote, by the rules every reader shares: a file of
// a tree a user gave (never through a link out of it, never a pipe), a counter file, the rule
// files of a generated tree in evaluation order, a generated tree as it is at a git ref, and
// rule files and Grafana dashboards in every shape with the position of every value (plain
// groups, PrometheusRule manifests, ConfigMaps holding dashboards, bare or wrapped dashboard
// JSON). The commands (lint, diff, backtest, generate) read through it and borrow nothing from
// each other.
package source

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadInTree reads a regular file of a tree a user gave, refusing, unread, one that is (or lies
// behind) a symbolic link out of the tree (a checked-in file linked to /proc/self/environ must
// not reach a log or a pull-request comment) and one that is not a regular file (a named pipe
// would block the read for ever). The refusal quotes nothing of the file.
func ReadInTree(dir, path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !InTree(dir, path) {
		return nil, fmt.Errorf("%s is a symbolic link out of %s: not read", path, dir)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): not read", path, DescribeMode(info.Mode()))
	}
	return os.ReadFile(path)
}

// ReadNamed reads a file a user named (a baseline, a counter file) by ReadInTree's rule, its
// tree being its own directory.
func ReadNamed(path string) ([]byte, error) { return ReadInTree(filepath.Dir(path), path) }

// InTree reports whether a file, symbolic links resolved, lies under dir, resolved as well:
// what every reader of a tree a user gave asks before it reads a file of it.
func InTree(dir, name string) bool {
	resolvedDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	resolved, err := filepath.EvalSymlinks(name)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(resolvedDir, resolved)
	return err == nil && filepath.IsLocal(rel)
}

// DescribeMode names what a file that is not a regular one is, for a refusal.
func DescribeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
