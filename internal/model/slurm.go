package model

// Scheduler is what hands GPUs to work.
type Scheduler string

// The schedulers: Kubernetes hands GPUs to pods, Slurm to jobs.
const (
	SchedulerKubernetes Scheduler = "kubernetes"
	SchedulerSlurm      Scheduler = "slurm"
)

// Schedulers are the valid values of Model.Scheduler.
var Schedulers = []Scheduler{SchedulerKubernetes, SchedulerSlurm}

// Slurm is where a Slurm fleet's rules read Slurm: its own metrics, node states and jobs.
type Slurm struct {
	// Job is the scrape job of slurmctld's own metrics (metrics/openmetrics); NodeLabel the
	// label that names a node on them.
	Job       string `json:"job"`
	NodeLabel string `json:"nodeLabel"`
	// HostFromNode maps a Slurm node name to the exporter's host label value.
	HostFromNode Rewrite `json:"hostFromNode"`
	// NodeState is where node states come from; JobInfo where a job's user comes from.
	NodeState SlurmSource `json:"nodeState"`
	JobInfo   SlurmSource `json:"jobInfo"`
	// DrainReasons are the reasons the runbooks drain a node with, by who acts on them.
	DrainReasons map[string]string `json:"drainReasons"`
}

// Rewrite is a label_replace: Regex matched against a value, Replacement written.
type Rewrite struct {
	Regex       string `json:"regex"`
	Replacement string `json:"replacement"`
}

// SlurmSource is an exporter a Slurm rule reads: its kind (Source) and scrape job.
type SlurmSource struct {
	Source string `json:"source"`
	Job    string `json:"job"`
}

// The node-state and job-info sources.
const (
	SlurmSourceSckyzO    = "sckyzo"
	SlurmSourceSoperator = "soperator"
	SlurmSourceNone      = "none"
)

// SlurmNodeStateSources and SlurmJobInfoSources are the sources each may name.
var (
	SlurmNodeStateSources = []string{SlurmSourceSckyzO, SlurmSourceSoperator, SlurmSourceNone}
	SlurmJobInfoSources   = []string{SlurmSourceSoperator, SlurmSourceNone}
)
