// The embedded catalog on a sharded fleet: one Prometheus per cluster (cluster its external
// label) under a Thanos ruler.
(import 'gpuobs.libsonnet') + { topology+: { mode: 'sharded' } }
