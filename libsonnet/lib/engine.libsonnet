// Builders of serving-engine profiles (engines/*.libsonnet): a read of an engine's series (its
// name, the matchers that select it, and the labels its series carry beyond the profile's,
// valued as the engine writes them, for scenarios), an outcome's series, and the role of an
// engine's servers that answer a frontend, not clients.
{
  read(name, selector, labels={}):: { name: name, selector: selector, labels: labels },
  outcome(name, labels):: { name: name, labels: labels },
  // Workers behind a frontend that is also served (Dynamo's in front of vLLM, SGLang or
  // TensorRT-LLM workers): the frontend sees each client's request, its latencies and the
  // tokens streamed back, so the workers' are not read (each would count twice); their queue,
  // KV cache and preemptions are, on every worker. `servers` reads a series only the workers
  // send (by a label of their scrape targets, such as their namespace), `target` those labels
  // (for scenarios).
  behindFrontend(servers, target):: {
    servers: servers,
    leaves: ['timeToFirstToken', 'interTokenLatency', 'requestLatency', 'requests', 'generated', 'running'],
    example: {},
    target: target,
  },
}
