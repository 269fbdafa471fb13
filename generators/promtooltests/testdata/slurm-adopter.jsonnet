// A national lab's Slurm fleet as its SRE team writes the catalog: labels of its own (the
// cluster label site, the job label slurm_job from a relabelling of hpc_job, the host label
// node), Slurm node names that may be fully qualified (the exporter sends the short host name),
// soperator's exporter for node states and job owners with its own scrape jobs, teams of its
// own and the release and cohort sections off. Its GPUs are held to 99.9 % availability, not 99 %:
// a test then shows the SLO's tiers apart on hundreds of GPUs, some of which Slurm lends and the
// exporter does not report.
(import 'gpuobs.libsonnet') {
  scheduler: 'slurm',
  exporter+: { version: '4.8.3', hostLabel: 'node', job: 'gpu-telemetry' },
  labels+: { cluster: 'site', job: 'slurm_job', gpu: 'gpu_index', modelName: 'gpu_model', team: 'owner' },
  teams+: { infra: 'hpc-ops', 'ml-platform': 'research-computing', inference: 'llm-serving' },
  slurm+: {
    job: 'slurmctld',
    nodeLabel: 'node',
    hostFromNode: { regex: '([^.]+)([.].*)?', replacement: '$1' },
    nodeState: { source: 'soperator', job: 'soperator-exporter' },
    jobInfo: { source: 'soperator', job: 'soperator-exporter' },
  },
  enabled+: { release: false, cohorts: false, infiniband: true, nccl: true },
  slos+: { GPUAvailability+: { objective: 0.999 } },
}
