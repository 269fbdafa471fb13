// A team's own catalog (every label and team renamed, sections off) on a fleet with Grace
// Blackwell NVL72 racks beside its HGX nodes.
(import 'adopter.jsonnet') {
  exporter+: { platform: 'gb200' },
}
