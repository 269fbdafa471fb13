// Builders of serving-engine profiles (engines/*.libsonnet): a read of an engine's series (its
// name, the matchers that select it, and the labels its series carry beyond the profile's,
// valued as the engine writes them, for scenarios), and an outcome's series.
{
  read(name, selector, labels={}):: { name: name, selector: selector, labels: labels },
  outcome(name, labels):: { name: name, labels: labels },
}
