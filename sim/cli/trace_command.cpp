// `simctl trace CONFIG OUT.json [--ranks M]`: writes the per-rank trace a
// config generates in the trace format (docs/trace-format.md), so a user can
// edit it and replay it with `workload: {trace: OUT.json}`. --ranks rescales
// the data-parallel dimension (weak scaling) where the plan allows it.
#include <cstdint>
#include <stdexcept>

#include "sim/cli/command.hpp"
#include "sim/cli/exportable_step.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/set_option.hpp"
#include "sim/scenario/scenario.hpp"
#include "workloads/trace_json.hpp"
#include "workloads/trace_rescale.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

Trace rescaled(const Scenario& s, std::int64_t ranks) {
  if (s.replays_trace_file)
    throw UsageError(
        "--ranks rescales a generated workload, but this config replays a trace file whose plan simctl "
        "does not know; rescale the config that generated it");
  try {
    return rescale_data_parallel(s.trace, s.workload, ranks);
  } catch (const std::invalid_argument& e) {
    throw UsageError("cannot rescale to " + std::to_string(ranks) + " ranks: " + e.what());
  }
}

}  // namespace

po::options_description trace_options() {
  po::options_description named;
  named.add_options()("ranks", po::value<std::int64_t>()->value_name("M"),
                      "rescale to M ranks (a count): whole data-parallel replicas, same work per rank");
  add_set_option(named);
  return named;
}

Scenario load_exportable_step(const ParsedOptions& options) {
  Scenario s =
      load_scenario(options.positionals[0], ScenarioOptions{true, false, set_overrides(options), false, nullptr});
  if (s.workload.inference)
    throw UsageError("an inference workload (task: inference) has no single step to export; `simctl run` replays it");
  return s;
}

int trace_command_main(const ParsedOptions& options, std::ostream& out) {
  const Scenario s = load_exportable_step(options);
  std::string description = s.labels.workload;
  Trace trace = s.trace;
  if (options.values.count("ranks")) {
    const std::int64_t ranks = options.values["ranks"].as<std::int64_t>();
    trace = rescaled(s, ranks);
    description += "; rescaled to " + std::to_string(ranks) + " ranks (same work per rank)";
  }
  write_trace_file(options.positionals[1], trace, description);
  out << "wrote " << options.positionals[1] << ": " << trace.ranks.size() << " ranks, " << trace.op_count() << " ops, "
      << trace.groups.size() << " groups\n";
  return 0;
}

}  // namespace simctl
