// Dashboard schemas, UIDs and the exporter's driver field wrong: each is reported, by catalog
// path.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  exporter+: { driverField: 'driver_version' },
  deploy+: { grafana+: { uidPrefix: 'GPU_fleet', schemas: ['v2', 'v3', 'v2'], sidecar+: { enabled: true } } },
  dashboards+: { L5+: { uid: 'gpu/one-gpu' } },
}
