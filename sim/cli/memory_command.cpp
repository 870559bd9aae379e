// `simctl memory CONFIG`: the memory estimator's breakdown per pipeline stage
// (ranks of one stage are alike), in GiB, with the headroom left on the
// stage's GPU and an OOM line for each stage that does not fit; first the
// model's exact parameter count.
#include <algorithm>
#include <cstdio>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/set_option.hpp"
#include "sim/core/digit_groups.hpp"
#include "sim/scenario/scenario.hpp"
#include "workloads/rank_grid.hpp"

namespace simctl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

constexpr const char* kTrainingNote =
    "activations: in-flight micro-batch chunk passes x layers per chunk x Korthikanti et al. per-layer bytes";
constexpr const char* kInferenceNote =
    "kv_cache: 2 x layers x kv_heads/TP x head_dim x context x batch; activations/temporary: one decode step";

// Names longer than the 17 columns of the training rows (activations/temporary)
// widen their own column.
std::size_t column_width(const std::string& name) { return std::max<std::size_t>(17, name.size()); }

std::string gib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%9.2f", bytes / kGiB);
  return buffer;
}

// A rank that runs the row's stage (rank 0 for the first row).
std::uint32_t representative_rank(const Scenario& s, std::size_t row) {
  if (s.workload.strategy == Strategy::data_parallel) return row == 0 ? 0 : 1;
  const RankGrid grid(s.workload.parallel);
  return grid.rank(RankCoord{0, 0, static_cast<std::int64_t>(row)});
}

void print_parameters(const Scenario& s, std::ostream& out) {
  const std::int64_t count = parameter_count(s.workload);
  char millions[32];
  std::snprintf(millions, sizeof millions, "%.2f", static_cast<double>(count) / 1e6);
  out << "parameters: " << with_commas(static_cast<std::uint64_t>(count)) << " (" << millions << " M) in "
      << s.workload.model.name << "\n";
}

void print_header(const Scenario& s, std::ostream& out) {
  out << s.labels.workload << "\n" << s.labels.system << "\n";
  print_parameters(s, out);
  out << "\n";
  out << "memory per rank (GiB)\n";
  out << "  row                 ";
  for (const auto& item : s.memory.front().items) {
    out << " " << std::string(column_width(item.name) - item.name.size(), ' ') << item.name;
  }
  out << "      total   capacity   headroom  in-flight\n";
}

// What offload keeps in the rank's host memory, against its share of the
// host's DRAM.
void print_host_row(const Scenario& s, const StageMemory& m, std::uint32_t rank, std::ostream& out,
                    std::vector<std::string>& over) {
  const double capacity = rank_host_capacity_bytes(s, rank);
  out << "    offloaded to host:";
  for (const auto& item : m.host_items) out << " " << item.name << gib(item.bytes);
  out << "  total" << gib(m.host_bytes()) << "  host share" << gib(capacity) << "\n";
  if (capacity > 0.0 && m.host_bytes() > capacity) {
    char line[160];
    std::snprintf(line, sizeof line, "%s (rank %u) offloads %.1f GiB but its share of host memory is %.1f GiB",
                  m.role.c_str(), rank, m.host_bytes() / kGiB, capacity / kGiB);
    over.push_back(line);
  }
}

}  // namespace

boost::program_options::options_description memory_options() {
  boost::program_options::options_description named;
  add_set_option(named);
  return named;
}

int memory_command_main(const ParsedOptions& options, std::ostream& out) {
  const ConfigOverrides overrides = set_overrides(options);
  const Scenario s = load_scenario(options.positionals[0], ScenarioOptions{true, true, overrides, false, nullptr});
  print_set_line(overrides, out);
  if (s.replays_trace_file) throw UsageError("the workload is a trace file; memory is estimated from a model and plan");
  print_header(s, out);
  std::vector<std::string> out_of_memory;
  for (std::size_t row = 0; row < s.memory.size(); ++row) {
    const StageMemory& m = s.memory[row];
    const std::uint32_t rank = representative_rank(s, row);
    const double capacity = rank_gpu_capacity_bytes(s, rank);
    char label[24];
    std::snprintf(label, sizeof label, "  %-20s", m.role.c_str());
    out << label;
    for (const auto& item : m.items) out << std::string(column_width(item.name) - 8, ' ') << gib(item.bytes);
    out << "  " << gib(m.total_bytes()) << "  " << gib(capacity) << "  " << gib(capacity - m.total_bytes()) << "  "
        << m.in_flight << "\n";
    if (m.total_bytes() > capacity) out_of_memory.push_back(describe_out_of_memory(s, rank));
    if (!m.host_items.empty()) print_host_row(s, m, rank, out, out_of_memory);
  }
  out << "\n" << (s.workload.inference ? kInferenceNote : kTrainingNote) << "\n";
  for (const auto& line : out_of_memory) out << "OUT OF MEMORY: " << line << "\n";
  return out_of_memory.empty() ? 0 : 1;
}

}  // namespace simctl
