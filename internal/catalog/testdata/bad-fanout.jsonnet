// Fan-outs that project nothing: a label that takes no value per rank, and a negative count
// (lint's cardinality budget multiplies by them).
(import 'gpuobs.libsonnet') {
  enabled+: { nccl: true },
  metrics+: { nccl_bus_bandwidth_gbs+: { fanout: { comm_name: 0, collective: -2 } } },
}
