package kept

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMemoRunsACheckOncePerContent: a pass is remembered for the same content and check, by
// the same program, in this run and, saved, in the next; other content, another check or
// another program check again; a failure is never remembered; a nil Memo always checks; Run
// writes nothing, Save does.
func TestMemoRunsACheckOncePerContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checked")
	runs := 0
	verdict := error(nil)
	check := func([]byte) error { runs++; return verdict }
	m := NewMemo(dir)
	if m == nil {
		t.Fatal("no memo for a directory")
	}
	var next *Memo // the next run's, read from what m saved
	for i, step := range []struct {
		memo    func() *Memo
		name    string
		content string
		fail    bool
		runs    int
	}{
		{func() *Memo { return m }, "loader", "a", false, 1},
		{func() *Memo { return m }, "loader", "a", false, 1}, // remembered
		{func() *Memo { return m }, "loader", "b", false, 2}, // other content
		{func() *Memo { return m }, "other", "a", false, 3},  // another check
		{func() *Memo { return memoOf(dir, "rebuilt") }, "loader", "a", false, 4},
		{func() *Memo { return m }, "loader", "c", true, 5},
		{func() *Memo { return m }, "loader", "c", true, 6}, // a failure is checked again
		{func() *Memo { return nil }, "loader", "a", false, 7},
		{func() *Memo { return NewMemo("") }, "loader", "a", false, 8},
		{func() *Memo { return next }, "loader", "b", false, 8}, // saved, found in the next run
		{func() *Memo { return next }, "loader", "c", false, 9},
	} {
		if i == 9 {
			if _, err := os.Stat(dir); err == nil {
				t.Fatal("Run wrote to the directory")
			}
			m.Save()
			next = NewMemo(dir)
		}
		verdict = nil
		if step.fail {
			verdict = errors.New("refused")
		}
		err := step.memo().Run(step.name, []byte(step.content), check)
		if (err != nil) != step.fail {
			t.Errorf("step %d: error %v, want failure %v", i, err, step.fail)
		}
		if runs != step.runs {
			t.Errorf("step %d: the check ran %d times in all, want %d", i, runs, step.runs)
		}
	}
}

// TestPruneKeepsTheMostRecentlyUsed: past max entries the least recently used go, and a file
// that is not an entry stays; an entry used (Used) counts as recent; an entry's second name
// (a hard link) counts with it, once, and goes with it.
func TestPruneKeepsTheMostRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	entry := func(i int) string { return filepath.Join(dir, fmt.Sprintf("%064x", i)) }
	for i := range 6 {
		if err := os.WriteFile(entry(i), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(entry(i), old, old.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Second names of the newest entry and of one that goes: 8 names, 6 entries.
	for _, i := range []int{5, 1} {
		if err := os.Link(entry(i), entry(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	if !Used(entry(0)) || Used(filepath.Join(dir, "absent")) {
		t.Fatal("Used does not tell an entry from a missing file")
	}
	Prune(dir, 3)
	for i, want := range map[int]bool{0: true, 1: false, 2: false, 3: false, 4: true, 5: true, 15: true, 11: false} {
		if _, err := os.Stat(entry(i)); (err == nil) != want {
			t.Errorf("entry %d kept: %v, want %v", i, err == nil, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("a file that is not an entry was removed: %v", err)
	}
}
