// recording.sectionIntervals: a section the catalog does not have, an interval faster than
// recording.interval, and one that is no duration.
(import 'gpuobs.libsonnet') {
  recording+: { sectionIntervals+: { ncc: '3m', nccl: '30s', infiniband: 'soon' } },
}
