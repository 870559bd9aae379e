// `simctl collective`: the nccl-tests twin. Same columns as nccl-tests'
// *_perf output, one row per size from --min to --max by --factor, on the
// first --gpus GPUs of a system (a system file, or a run config naming one),
// or with --per-node G the first G GPUs of each node, as nccl-tests' -N x -G.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective_overrides.hpp"
#include "models/network/nccl_test.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/path_check.hpp"
#include "sim/config/quantity.hpp"
#include "sim/topology/system_config.hpp"

namespace po = boost::program_options;

namespace simctl {

namespace {

// The `system:` section of CONFIG: inline, or a file path relative to CONFIG.
ConfigNode system_section(const std::string& config) {
  const ConfigNode root = ConfigNode::load_file(config);
  const ConfigNode value = root.child("system");
  if (value.is_map()) return value;
  const auto file = std::filesystem::path(config).parent_path() / value.as_string();
  if (const std::string why = file_problem(file); !why.empty()) value.fail("file '" + file.string() + "' " + why);
  return ConfigNode::load_file(file.string()).child("system");
}

double size_option(const po::variables_map& values, const char* name) {
  const std::string text = values[name].as<std::string>();
  const auto bytes = parse_size_bytes(text);
  if (!bytes || *bytes <= 0)
    throw UsageError(std::string("--") + name + ": '" + text + "' is not a size like 8B or 8GiB");
  return *bytes;
}

std::string algorithm_names() { return join_choices(collective_algorithm_names()); }

// nccl-tests counts elements of the type (float, 4 bytes), as its output does.
constexpr double kElementBytes = 4.0;

void print_header(std::ostream& out, const System& system, const CollectivePoint& p) {
  char line[256];
  if (p.per_node > 0) {
    std::snprintf(line, sizeof line, "# simctl collective: %s on %d GPUs (%d per node) of %s\n",
                  std::string(to_string(p.op)).c_str(), p.gpus, p.per_node, system.name().c_str());
  } else {
    std::snprintf(line, sizeof line, "# simctl collective: %s on %d GPUs of %s\n", std::string(to_string(p.op)).c_str(),
                  p.gpus, system.name().c_str());
  }
  out << line;
  out << "#\n#       size         count    type   redop     time   algbw   busbw  algorithm\n"
      << "#        (B)    (elements)                      (us)  (GB/s)  (GB/s)\n";
}

void print_row(std::ostream& out, const CollectivePoint& p, const CollectiveResult& r) {
  char line[256];
  std::snprintf(line, sizeof line, "%12.0f  %12.0f   float  %6s  %8.2f  %6.2f  %6.2f  %s/%s\n", p.bytes,
                std::floor(p.bytes / kElementBytes), reduces(p.op) ? "sum" : "none", ps_to_seconds(r.time) * 1e6,
                r.algbw_bytes_per_s / 1e9, r.busbw_bytes_per_s / 1e9,
                std::string(to_string(r.choice.algorithm)).c_str(), std::string(to_string(r.choice.protocol)).c_str());
  out << line;
}

CollectivePoint base_point(const po::variables_map& values, const System& system) {
  CollectivePoint p;
  const std::string op = values["op"].as<std::string>();
  const auto parsed_op = collective_op_from_string(op);
  if (!parsed_op) throw UsageError("--op: unknown collective '" + op + "'");
  p.op = *parsed_op;
  const std::string algo = values["algo"].as<std::string>();
  const auto parsed_algo = collective_algorithm_from_string(algo);
  if (!parsed_algo) throw UsageError("--algo: unknown algorithm '" + algo + "'; valid: " + algorithm_names());
  p.algorithm = *parsed_algo;
  p.gpus = values.count("gpus") ? values["gpus"].as<int>() : static_cast<int>(system.gpus().size());
  if (p.gpus < 1 || p.gpus > static_cast<int>(system.gpus().size())) {
    throw UsageError("--gpus: " + std::to_string(p.gpus) + " is not between 1 and the system's " +
                     std::to_string(system.gpus().size()) + " GPUs");
  }
  if (values.count("per-node")) {
    p.per_node = values["per-node"].as<int>();
    if (p.per_node < 1 || p.gpus % p.per_node != 0) {
      throw UsageError("--per-node: " + std::to_string(p.per_node) + " must be at least 1 and divide the " +
                       std::to_string(p.gpus) + " GPUs of --gpus");
    }
    try {
      collective_members(system, p);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--per-node: ") + e.what());
    }
  }
  p.sharp = values.count("sharp") > 0;
  if (p.algorithm == CollectiveAlgorithm::sharp && !p.sharp) {
    throw UsageError(
        "--algo sharp reduces in the fabric's switches, which simctl assumes do not reduce unless told: add "
        "--sharp if the fabric's switches reduce (InfiniBand SHARP)");
  }
  if (values.count("ctas")) {
    p.ctas = values["ctas"].as<int>();
    if (p.ctas < 1 || p.ctas > kMaxCtas) {
      throw UsageError("--ctas: NCCL runs 1 to " + std::to_string(kMaxCtas) + " CTAs; got " + std::to_string(p.ctas));
    }
  }
  return p;
}

}  // namespace

po::options_description collective_options() {
  po::options_description named;
  named.add_options()("op", po::value<std::string>()->value_name("OP")->default_value("all_reduce"),
                      "the collective: all_reduce, all_gather, reduce_scatter, broadcast, reduce or all_to_all")(
      "gpus", po::value<int>()->value_name("N"), "run on the system's first N GPUs (default: all of them)")(
      "per-node", po::value<int>()->value_name("G"),
      "take the first G GPUs of each node, node after node, until --gpus (nccl-tests run with G processes per node)")(
      "min", po::value<std::string>()->value_name("SIZE")->default_value("8B"),
      "the smallest message, in bytes with a unit (8B, 64KiB, 1GiB)")(
      "max", po::value<std::string>()->value_name("SIZE")->default_value("128MiB"),
      "the largest message, in bytes with a unit")("factor", po::value<double>()->value_name("F")->default_value(2.0),
                                                   "each size is F times the previous (a ratio, > 1)")(
      "algo", po::value<std::string>()->value_name("ALGO")->default_value("auto"),
      ("the algorithm: " + algorithm_names() + " (auto: NCCL's choice by size)").c_str())(
      "sharp", "the fabric's switches reduce (InfiniBand SHARP), so --algo sharp can run")(
      "ctas", po::value<int>()->value_name("N"),
      "NCCL's CTA (channel) count, as NCCL_MIN_CTAS=NCCL_MAX_CTAS=N sets it (default: NCCL's, 16 across nodes); "
      "bounds rings across nodes");
  return named;
}

int collective_command_main(const ParsedOptions& options, std::ostream& out) {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  const LinkKindTable link_kinds = LinkKindTable::load();
  const System system = load_system(system_section(options.positionals[0]), catalogue, link_kinds);
  const CollectiveTuning tuning = CollectiveTuning::load();
  CollectivePoint point = base_point(options.values, system);
  const double min = size_option(options.values, "min"), max = size_option(options.values, "max");
  const double factor = options.values["factor"].as<double>();
  if (!(factor > 1.0)) throw UsageError("--factor must be greater than 1");
  if (min > max) throw UsageError("--min must not exceed --max");
  print_header(out, system, point);
  for (double bytes = min; bytes <= max * (1 + 1e-9); bytes *= factor) {
    point.bytes = bytes;
    try {
      print_row(out, point, simulate_collective(system, tuning, point));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  return 0;
}

}  // namespace simctl
