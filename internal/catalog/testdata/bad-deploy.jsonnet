// Dashboard schemas and the exporter's driver field wrong: each is reported, by catalog path.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  exporter+: { driverField: 'driver_version' },
  deploy+: { grafana+: { schemas: ['v2', 'v3', 'v2'], sidecar+: { enabled: true } } },
}
