// A fleet of Grace Blackwell NVL72 racks on dcgm-exporter 4.9: the NVLink fabric, NVLink-C2C
// and NVLink 5 fields in the counter file, their alerts and panels.
(import 'gpuobs.libsonnet') {
  exporter+: { version: '4.9', platform: 'gb200' },
}
