local gpuobs = import 'gpuobs.libsonnet';
local nope = import 'does-not-exist.libsonnet';
gpuobs + nope
