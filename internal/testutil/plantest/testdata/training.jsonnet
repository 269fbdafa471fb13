// A training-only fleet: every catalog section switched off (no vLLM serving, canary releases,
// cost, cohorts, retention tiers or scheduling alerts) but its InfiniBand ports' and NCCL
// Inspector's; the core GPU health, utilization and workload alerts stay.
(import 'gpuobs.libsonnet') {
  enabled+: { inference: false, release: false, cost: false, cohorts: false, retention: false, scheduling: false, infiniband: true, nccl: true },
}
