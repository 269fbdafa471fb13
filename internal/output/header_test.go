package output

import "testing"

// TestHasHeader: the header is found on the first line, or at the start of a JSON document's
// top-level description, and nowhere else.
func TestHasHeader(t *testing.T) {
	for _, c := range []struct {
		path, content string
		want          bool
	}{
		{"rules/a.yaml", "# " + Header + "\ngroups: []\n", true},
		{"runbooks/A.md", "<!-- " + Header + " -->\n# A\n", true},
		{"dashboards/l1.json", `{"annotations": {}, "description": "` + Header + ` Fleet."}`, true},
		{"dashboards/mine.json", `{"description": "My own dashboard; ` + Header + `"}`, false},
		{"dashboards/broken.json", `{"description": "` + Header, false},
		{"rules/mine.yaml", "groups: []\n# " + Header + "\n", false},
	} {
		if got := HasHeader(c.path, []byte(c.content)); got != c.want {
			t.Errorf("HasHeader(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}
