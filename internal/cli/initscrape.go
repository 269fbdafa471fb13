package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/scrape"
)

// readScrapes reads every scrape named and tells what install sent them; a file that does not
// parse is reported with its line, and every file is read before that is said.
func readScrapes(files []string) (*scrape.Install, []string, error) {
	var installs []*scrape.Install
	var problems []error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		in, err := scrape.Read(f, data)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		installs = append(installs, in)
	}
	if len(problems) > 0 {
		return nil, nil, errors.Join(problems...)
	}
	in, conflicts := scrape.Merge(installs)
	return in, conflicts, nil
}

// scrapeCatalog writes the starter catalog of an install: each setting the scrapes decide,
// with the evidence as its comment, and what a scrape cannot tell. m is the embedded catalog,
// which knows the default counter set.
func scrapeCatalog(in *scrape.Install, files []string, m *model.Model) []byte {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("// gpuobs.jsonnet, written by `gpuobs init --from-scrape` from %s", strings.Join(files, ", "))
	line("// (%d GPUs: %s; drivers %s).", in.GPUs, orNone(in.Models), orNone(in.Drivers))
	line("// It starts from the catalog embedded in gpuobs and sets what the scrapes show; each setting")
	line("// says what decided it. Generate with: gpuobs generate -c <this file> -o .")
	line("//")
	line("// What a scrape cannot tell, to set yourself:")
	line("//   - the cluster: Prometheus adds it by relabeling (labels.cluster names the label) or as")
	line("//     an external label of each cluster's Prometheus (topology+: { clusterExternal: true });")
	if len(in.Jobs) == 0 {
		line("//   - the job of the exporter's targets (exporter.job): dcgm-exporter under the Helm")
		line("//     chart's ServiceMonitor, nvidia-dcgm-exporter under the GPU Operator's;")
	}
	line("//   - your teams (teams+: { infra: ..., 'ml-platform': ..., inference: ... }) and where")
	line("//     the runbooks are served (runbooks+: { baseURL: ... });")
	if in.MIG {
		line("//   - the GPU Operator's MIG strategy (single or mixed): kube-state-metrics shows it,")
		line("//     not the exporter; gpuobs reads both.")
	} else {
		line("//   - whether some GPUs run MIG: none of these scrapes shows an instance.")
	}
	line("local gpuobs = import 'gpuobs.libsonnet';")
	line("")
	line("gpuobs {")
	if in.HPCJobs {
		line("  // The GPU series carry hpc_job (the exporter's --hpc-job-mapping-dir): the jobs are")
		line("  // Slurm's, so gpuobs reads jobs, nodes and drains from Slurm, not Kubernetes. Set")
		line("  // slurm+: { job, nodeState, jobInfo, hostFromNode } to your sources (docs/catalog-guide.md,")
		line("  // Slurm and bare metal).")
		line("  scheduler: 'slurm',")
	}
	line("  exporter+: {")
	line("    // The exporter's version: %s.", in.VersionEvidence)
	line("    version: '%s',", in.Version)
	if in.Attribution != "" {
		line("    // Pod attribution arrives as %s: the rules read pod and exported_pod alike (a", in.Attribution)
		line("    // ServiceMonitor's honorLabels true or false), so there is nothing to set.")
	}
	if in.VGPUGuests {
		line("    // The GPUs are vGPU guests (%s): they send no temperature, so gpuobs reads them by", orNone(in.Models))
		line("    // the next of exporter.healthFields they send (%s).", strings.Join(m.Exporter.HealthFields[1:], ", "))
	}
	if in.GB200 {
		line("    // Grace Blackwell's NVLink fabric or C2C fields are there.")
		line("    platform: 'gb200',")
	}
	if len(in.Jobs) == 1 {
		line("    // The series carry job %q.", in.Jobs[0])
		line("    job: '%s',", in.Jobs[0])
	} else if len(in.Jobs) > 1 {
		line("    // The series carry several jobs (%s): gpuobs watches one; settle on one name.", strings.Join(in.Jobs, ", "))
		line("    job: '%s',", in.Jobs[0])
	}
	extra, unknown := counterSet(in, m)
	switch missing := in.Cut(); {
	case len(missing) > 0:
		line("    // The scrapes lack %s, which every exporter sends: they look cut, so they do not", strings.Join(missing, ", "))
		line("    // tell the counter set. Save a whole scrape, or list what your counter file collects")
		line("    // beyond the default set in extraCounters.")
	case len(extra) == 0:
		line("    // The exporter runs its default counter set: the alerts that need more fields cannot")
		line("    // fire (gpuobs generate names them). Deploy exporter/dcgm-counters.csv, then delete")
		line("    // this line.")
		line("    extraCounters: [],")
	default:
		line("    // The exporter's counter file collects these fields beyond the default set; the alerts")
		line("    // that need others cannot fire (gpuobs generate names them).")
		line("    extraCounters: [")
		for _, f := range extra {
			line("      '%s',", f)
		}
		line("    ],")
	}
	if len(unknown) > 0 {
		line("    // Fields the catalog does not know (declare them in fields to read them): %s.", strings.Join(unknown, ", "))
	}
	line("  },")
	line("}")
	return []byte(b.String())
}

// counterSet splits the scrapes' fields into those beyond the default set that the catalog
// knows (by the embedded catalog's name, whatever version's name the scrape uses) and those it
// does not know.
func counterSet(in *scrape.Install, m *model.Model) (extra, unknown []string) {
	for _, f := range in.Fields {
		name := f
		if _, ok := m.Fields[f]; !ok {
			r, renamed := m.OtherVersionName(f)
			if !renamed {
				unknown = append(unknown, f)
				continue
			}
			name = r.Catalog
		}
		if !m.Fields[name].Default && !slices.Contains(extra, name) {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	return extra, unknown
}

// orNone lists values, or says there are none.
func orNone(values []string) string {
	if len(values) == 0 {
		return "none named"
	}
	return strings.Join(values, ", ")
}

// embeddedModel is the embedded catalog, for what it knows of fields.
func embeddedModel(o Options) (*model.Model, error) {
	return catalog.Load(catalog.Options{CacheDir: o.CatalogCache})
}
