// Names from the catalog that become file names: one that would leave the output directory.
(import 'gpuobs.libsonnet') { dashboards+: { '../../x': super.L1 { uid: 'x' } } }
