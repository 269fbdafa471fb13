// Triton Inference Server (core src/metrics.cc): per-model counters and the pending
// requests on its metrics port; no latency histogram the SLOs can read: request and
// queue durations are cumulative µs counters, and the only histogram,
// nv_inference_first_response_histogram_ms, is off unless --metrics-config
// histogram_latencies=true, in ms, with bounds 100, 500, 2000 and 5000.
local engine = import '../lib/engine.libsonnet';
local e = import '../lib/expr.libsonnet';
{
  inference+:: {
    local read = engine.read,
    local outcome = engine.outcome,
    profiles+: {
      triton: {
        title: 'Triton Inference Server',
        modelLabel: 'model',
        labels: ['version'],
        selector: '',
        endpoint: '/metrics on the metrics port (8002)',
        enable: 'on by default',
        job: 'triton',
        port: 8002,
        example: { version: '1' },
        wholeBound: '',
        // Requests received, not yet executing.
        waiting: [read('nv_inference_pending_request_count', '')],
        // The models that are ensembles (the tensorrtllm_backend layout's is `ensemble`, before
        // preprocessing, tensorrt_llm and postprocessing): no label tells them (core
        // src/constants.h: model, version, gpu_uuid and metric_tags only).
        ensembles: ['ensemble'],
        local triton = self,
        // Per model: successes, and failures by reason. REJECTED is the scheduler's queue
        // policy timing a request out (default_timeout_microseconds with REJECT): shedding on
        // purpose; CANCELED the client's; BACKEND and OTHER the server's failures. A request
        // refused because max_queue_size is reached is counted by neither.
        // An ensemble and each model it composes count every request (ensemble_scheduler.cc):
        // on a server running an ensemble, a request is read once, as the ensemble's success or
        // a composing model's failure (where the step failed, by its own reason); the
        // ensemble's own failures are never read, as it counts every failure of a step as OTHER
        // (twice for a refusal: server docs/user_guide/metrics.md), a queue policy's refusal
        // included.
        requests: {
          local success = 'nv_inference_request_success',
          local failure = 'nv_inference_request_failure',
          local ensembles = std.join('|', triton.ensembles),
          local composed = if triton.ensembles == [] then '' else e.fill('model!~"$(ensembles)"', { ensembles: ensembles }),
          local ensembleServers = e.fill('group by ($(server)) ($(success){model=~"$(ensembles)"})', {
            server: std.join(', ', $.inference.serverLabels),
            success: success,
            ensembles: ensembles,
          }),
          local steps(matchers) = e.inside([composed, matchers]),
          counters: { [success]: ['model', 'version'], [failure]: ['model', 'version', 'reason'] },
          served: (if triton.ensembles == [] then [read(success, '')] else [
                     read(success, e.fill('model=~"$(ensembles)"', { ensembles: ensembles })),
                     read(success, composed) { unless: ensembleServers },
                   ]) + [read(failure, steps('reason!="REJECTED"'))],
          failed: [read(failure, steps('reason=~"BACKEND|OTHER"'))],
          rejected: [read(failure, steps('reason="REJECTED"'))],
          local model = { model: 'llama-3-8b', version: '1' },
          example: { ok: outcome(success, model), failed: outcome(failure, model { reason: 'BACKEND' }), rejected: outcome(failure, model { reason: 'REJECTED' }) },
        },
      },
    },
  },
}
