// A team's own catalog (every label and team renamed, sections off) on a fleet with Grace
// Blackwell NVL72 racks beside its HGX nodes, their InfiniBand ports and NCCL Inspector's
// files scraped by kube-prometheus-stack's node exporter (its job name), whose target label
// node makes the inspector's exported_node; its straggler test wants communicators of 4 ranks.
(import 'adopter.jsonnet') {
  thresholds+: { ncclStragglerMinRanks: 4 },
  exporter+: { platform: 'gb200' },
  enabled+: { infiniband: true, nccl: true },
  infiniband+:: { job: 'prometheus-node-exporter' },
  nccl+:: { job: 'prometheus-node-exporter', podLabel: 'exported_node' },
}
