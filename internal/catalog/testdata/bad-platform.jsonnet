// A GPU platform no profile of platformFields describes: reported by its catalog path, with
// the profiles there are.
(import 'gpuobs.libsonnet') {
  exporter+: { platform: 'gb300' },
}
