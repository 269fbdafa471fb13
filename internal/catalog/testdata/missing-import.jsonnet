local nope = import 'does-not-exist.libsonnet';
local gpuobs = import 'gpuobs.libsonnet';
gpuobs + nope
