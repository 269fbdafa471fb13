// A Slurm fleet's sources misspelt, a host mapping that does not compile, and thresholds an
// older catalog set whose meaning changed: each is reported, by catalog path.
(import 'gpuobs.libsonnet') {
  scheduler: 'slurm',
  slurm+: {
    hostFromNode: { regex: '([^.]+', replacement: '$1' },
    nodeState: { source: 'sinfo', job: 'slurm-exporter' },
    jobInfo: { source: 'soperator', job: '' },
  },
  thresholds+: { stragglerRatio: 0.6, ncclBusySMActivity: 0.5 },
}
