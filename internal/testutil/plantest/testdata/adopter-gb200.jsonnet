// A team's own catalog (every label and team renamed, sections off) on a fleet with Grace
// Blackwell NVL72 racks beside its HGX nodes, their InfiniBand ports scraped by
// kube-prometheus-stack's node exporter (its job name).
(import 'adopter.jsonnet') {
  exporter+: { platform: 'gb200' },
  enabled+: { infiniband: true },
  infiniband+:: { job: 'prometheus-node-exporter' },
}
