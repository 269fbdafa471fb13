// A team's own catalog (every label and team renamed, sections off) on a fleet with Grace
// Blackwell NVL72 racks beside its HGX nodes, their InfiniBand ports and NCCL Inspector's
// files scraped by kube-prometheus-stack's node exporter (its job name), whose target label
// node makes the inspector's exported_node; its NCCL thresholds are its own (communicators of
// 4 ranks, a straggler at 2 ×, starved under 40 % while its GPUs are 8 % tensor-active, a
// DCGM straggler over 1.6 × its job's median) and its
// training jobs are Kubeflow's and JobSets only.
(import 'adopter.jsonnet') {
  thresholds+: { ncclStragglerMinRanks: 4, ncclStragglerRatio: 2, ncclStarvedRatio: 0.4, ncclMinTensorActivity: 0.08, stragglerTensorRatio: 1.6 },
  training+: { ownerKinds: ['JobSet', 'PyTorchJob', 'MPIJob'] },
  exporter+: { platform: 'gb200' },
  enabled+: { infiniband: true, nccl: true },
  infiniband+:: { job: 'prometheus-node-exporter' },
  nccl+:: { job: 'prometheus-node-exporter', podLabel: 'exported_node' },
}
