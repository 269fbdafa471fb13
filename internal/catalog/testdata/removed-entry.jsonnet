// A threshold the library reads, removed: the library's stack trace becomes the entry that
// reads it and what is missing.
(import 'gpuobs.libsonnet') { thresholds: std.objectRemoveKey(super.thresholds, 'gpuTemperatureCelsius') }
