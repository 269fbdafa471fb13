(import 'gpuobs.libsonnet') { prometheus+: { version: '2.53' } }
