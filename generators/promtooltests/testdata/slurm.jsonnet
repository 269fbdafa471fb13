// A bare-metal training fleet scheduled by Slurm: dcgm-exporter 4.8.3 as a systemd service
// with --hpc-job-mapping-dir (every series of a GPU carries its job's hpc_job), targets from
// file_sd under job dcgm-exporter, slurmctld's own metrics (MetricsType=metrics/openmetrics)
// under job slurm and SckyzO/slurm_exporter for node states. No kube-state-metrics anywhere.
(import 'gpuobs.libsonnet') {
  scheduler: 'slurm',
  exporter+: { version: '4.8.3' },
  // node_exporter on every node serves the InfiniBand ports and NCCL Inspector's files (its
  // runs keyed by the Slurm job the inspector names).
  enabled+: { infiniband: true, nccl: true },
}
