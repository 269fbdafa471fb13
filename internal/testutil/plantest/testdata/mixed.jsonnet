// A team's own catalog (every label and team renamed, sections off) on a fleet moving to DRA
// pool by pool: some nodes keep the device plugin, others hand GPUs out through DRA.
(import 'adopter.jsonnet') {
  kubernetes+: { gpuAllocation: 'mixed' },
}
