// An XID code given an action NVIDIA's catalog does not have (a typo): refused, with the
// actions it knows.
(import 'gpuobs.libsonnet') {
  xidCatalog+: { '999': { name: 'A code of a newer driver', action: 'RESET_GPUS' } },
}
