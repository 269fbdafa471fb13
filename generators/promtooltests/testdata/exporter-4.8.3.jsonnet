// dcgm-exporter 4.8.3: the host label is hostname.
(import 'gpuobs.libsonnet') { exporter+: { version: '4.8.3' } }
