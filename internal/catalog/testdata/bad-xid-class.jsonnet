// An XID code put in a class that no alert reads: its events would alert nowhere, so it is
// refused.
(import 'gpuobs.libsonnet') {
  xidCatalog+: { '94'+: { class: 'memory' } },
}
