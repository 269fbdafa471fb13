// A recovery action given a tier that no alert has: refused, with the tiers there are.
(import 'gpuobs.libsonnet') {
  exporter+: { version: '4.8.3' },
  recoveryActions+: { '3'+: { severity: 'page' } },
}
