// A fleet of Grace Blackwell NVL72 racks on dcgm-exporter 4.10 (4.9's units, the byte rates' new names): the NVLink fabric, NVLink-C2C
// and NVLink 5 fields in the counter file, their alerts and panels.
(import 'gpuobs.libsonnet') {
  exporter+: { version: '4.10', platform: 'gb200' },
}
