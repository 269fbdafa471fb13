package source

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ReadCounters reads a dcgm-exporter counter file: the Prometheus type of the DCGM field of
// every line that is not a comment. A line that is not "DCGM field, Prometheus type, help" (as
// the exporter refuses it) is an error by line number, quoting nothing of it: a file that is
// not a counter file must not pass as one that collects nothing.
func ReadCounters(path string, data []byte) (map[string]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	out := map[string]string{}
	var errs []error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		name := strings.TrimSpace(rec[0])
		if len(rec) < 2 || !counterName.MatchString(name) || !slices.Contains(counterTypes, strings.TrimSpace(rec[1])) {
			errs = append(errs, fmt.Errorf("%s:%d: not a counter line (DCGM field, Prometheus type, help)", path, line))
			continue
		}
		out[name] = strings.TrimSpace(rec[1])
	}
	if len(errs) == 0 && len(out) == 0 {
		errs = append(errs, fmt.Errorf("%s: holds no counter lines (DCGM field, Prometheus type, help)", path))
	}
	return out, errors.Join(errs...)
}

// Collected is the set of fields a counter file read by ReadCounters collects.
func Collected(counters map[string]string) map[string]bool {
	out := make(map[string]bool, len(counters))
	for field := range counters {
		out[field] = true
	}
	return out
}

// counterName is a field a counter file can name: a DCGM field or one the exporter adds.
var counterName = regexp.MustCompile(`^DCGM_(FI|EXP)_[A-Z0-9_]+$`)

// counterTypes are the Prometheus types a counter line may give its field.
var counterTypes = []string{"gauge", "counter", "label"}

// maxCounterFile is the largest .csv file FindCounterFiles reads: a counter file lists a few
// hundred fields at most.
const maxCounterFile = 1 << 20

// FindCounterFiles lists the dcgm-exporter counter files among paths and under their
// directories (not in tooling directories): the .csv files that read as one (ReadCounters), in
// path order; testdata directories hold fixtures and are left out. A repository that ships its
// exporter's counter file beside its rules and dashboards says with it what its exporter
// collects.
func FindCounterFiles(paths []string) []string {
	var found []string
	for _, root := range paths {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir() && path != root && (toolingDirs[d.Name()] || d.Name() == "testdata"):
				// A test's fixtures are no deployed counter file.
				return filepath.SkipDir
			case d.IsDir() || !d.Type().IsRegular() || !strings.EqualFold(filepath.Ext(path), ".csv"):
				return nil
			}
			if info, err := d.Info(); err != nil || info.Size() > maxCounterFile {
				return nil
			}
			if data, err := os.ReadFile(path); err == nil {
				if _, err := ReadCounters(path, data); err == nil {
					found = append(found, path)
				}
			}
			return nil
		})
	}
	slices.Sort(found)
	return slices.Compact(found)
}
