package scrape

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func read(t *testing.T, name string) *Install {
	t.Helper()
	path := filepath.Join("testdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Read(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestWhatAScrapeTells reads scrapes written in the shapes real installs send and checks what
// each tells: the version by names and labels, the host label, where pod attribution
// arrives, MIG, Grace Blackwell, vGPU guests and the job.
func TestWhatAScrapeTells(t *testing.T) {
	for _, c := range []struct {
		file, version, host, attribution string
		mig, gb200, guests               bool
		jobs                             []string
		gpus                             int
	}{
		{"helm-49.prom", "4.9", "hostname", "exported_pod", false, false, false, []string{"dcgm-exporter"}, 1},
		{"exporter-410.prom", "4.10", "hostname", "", false, false, false, nil, 1},
		{"gb200-mig.prom", "4.8.2", "Hostname", "pod", true, true, false, nil, 1},
		{"../../../generators/promtooltests/testdata/scrapes/grid-guest.prom", "4.8.2", "Hostname", "", false, false, true, nil, 1},
		{"../../../generators/promtooltests/testdata/scrapes/operator-l4.prom", "4.8.2", "Hostname", "", false, false, false, nil, 1},
	} {
		in := read(t, c.file)
		if in.Version != c.version || in.HostLabel != c.host || in.Attribution != c.attribution || in.MIG != c.mig || in.GB200 != c.gb200 || in.VGPUGuests != c.guests || !slices.Equal(in.Jobs, c.jobs) || in.GPUs != c.gpus {
			t.Errorf("%s: %+v", c.file, in)
		}
		if in.VersionEvidence == "" {
			t.Errorf("%s: no evidence for version %s", c.file, in.Version)
		}
	}
}

// TestACutText: a text without the clocks and framebuffer every exporter sends is an excerpt:
// it is called cut, and a temperature it lacks does not make its GPUs vGPU guests.
func TestACutText(t *testing.T) {
	in, err := Read("excerpt.prom", []byte(`DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",modelName="NVIDIA H100 80GB HBM3",Hostname="n1"} 1024`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Cut(), []string{"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_FB_FREE"}) || in.VGPUGuests || in.Stored() {
		t.Errorf("%+v, cut %v", in, in.Cut())
	}
}

// TestAValueThatIsNotANumber: a line Prometheus' parser rejects (the whole scrape with it) is
// reported at its line, in plain words.
func TestAValueThatIsNotANumber(t *testing.T) {
	path := filepath.Join("testdata", "bad-value.prom")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Read(path, data)
	var e *Error
	if !errors.As(err, &e) || e.Line != 8 || !strings.Contains(err.Error(), "bad-value.prom:8: ") || !strings.Contains(err.Error(), "rejects the whole scrape") {
		t.Errorf("got %v", err)
	}
	if _, err := Read("empty.prom", []byte("# nothing here\n")); err == nil || !strings.Contains(err.Error(), "not a dcgm-exporter scrape") {
		t.Errorf("a text without DCGM series: %v", err)
	}
}

// TestMergeSaysWhereNodeTypesDisagree: scrapes of two node types merge into one install (the
// newer version, every field); a host label or attribution they disagree on is said.
func TestMergeSaysWhereNodeTypesDisagree(t *testing.T) {
	in, conflicts := Merge([]*Install{read(t, "gb200-mig.prom"), read(t, "helm-49.prom")})
	if in.Version != "4.9" || !in.MIG || !in.GB200 || in.GPUs != 2 || !slices.Contains(in.Fields, "DCGM_FI_DEV_FABRIC_MANAGER_STATUS") || !slices.Contains(in.Fields, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL") {
		t.Errorf("merged: %+v", in)
	}
	want := []string{"host label (Hostname and hostname)", "pod attribution (pod and exported_pod)", "two exporter versions (4.8.2 and 4.9)"}
	for _, w := range want {
		if !slices.ContainsFunc(conflicts, func(c string) bool { return strings.Contains(c, w) }) {
			t.Errorf("no conflict saying %q in %q", w, conflicts)
		}
	}
	if _, conflicts := Merge([]*Install{read(t, "helm-49.prom"), read(t, "helm-49.prom")}); len(conflicts) != 0 {
		t.Errorf("two alike: %q", conflicts)
	}
}
