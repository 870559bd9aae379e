// `simctl roofline CONFIG [--device ID ...] [--rank R] [--json FILE] [--plot DIR]`:
// one rank's compute ops grouped by name (layers together), each placed on
// the roofline of every device asked for: FLOPs, bytes, arithmetic intensity,
// the ridge point its kernels see, and the time, FLOP/s and bound the compute
// model gives it. Devices are GPUs and CPUs with compute figures (cpus.yaml);
// the default is the GPU the rank runs on.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "models/devices/roofline_device.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/set_option.hpp"
#include "sim/report/plot_script.hpp"
#include "sim/report/roofline.hpp"
#include "sim/scenario/scenario.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

std::vector<std::string> device_ids(const ParsedOptions& options, const Scenario& s, std::uint32_t rank) {
  if (options.values.count("device")) return options.values["device"].as<std::vector<std::string>>();
  return {s.system.part(s.system.gpus()[s.trace.gpu_index(rank)]).model};
}

std::string format_figures(const char* pattern, double a, double b = 0.0) {
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, pattern, a, b);
  return buffer;
}

void print_device(const DeviceRoofline& d, std::ostream& out) {
  const bool cpu = d.memory_kind.rfind("ddr", 0) == 0 || d.memory_kind.rfind("lpddr", 0) == 0;
  const std::string matrix = std::string(to_string(d.matrix_dtype)) + (cpu ? " products" : " tensor");
  out << "device " << d.id << ": " << d.name << ", " << d.memory_kind << "\n";
  out << "  peak " << format_figures("%.1f", d.peak_matrix_flops_per_s / 1e12) << " TFLOP/s " << matrix << ", "
      << format_figures("%.1f", d.peak_vector_flops_per_s / 1e12) << " TFLOP/s fp32 vector; memory "
      << format_figures("%.1f GB/s peak, %.1f GB/s sustained", d.peak_bandwidth_bytes_per_s / 1e9,
                        d.sustained_bandwidth_bytes_per_s / 1e9)
      << "\n";
  out << "  ridge point (peak FLOP/s / peak bandwidth): " << format_figures("%.1f", d.matrix_ridge_flop_per_byte())
      << " FLOP/B " << matrix << ", " << format_figures("%.1f", d.vector_ridge_flop_per_byte())
      << " FLOP/B fp32 vector\n";
  for (FusedAttention kernel : d.attention_priced_as_flash2) {
    out << "  attention: no " << to_string(kernel) << " fit on " << d.id
        << ", priced as flash2 (FlashAttention-2, fitted on every device)\n";
  }
  out << "  op group                 kind         ops   GFLOP    GB moved  FLOP/B  ridge FLOP/B   time ms    TFLOP/s"
         "  bound\n";
  for (const RooflineGroup& g : d.groups) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-24s %-11s %5lld %9.2f %9.3f %7.1f %13.1f %9.3f %10.2f  %s\n", g.name.c_str(),
                  std::string(to_string(g.kind)).c_str(), static_cast<long long>(g.ops), g.flops / 1e9, g.bytes / 1e9,
                  g.intensity_flop_per_byte(), g.ridge_flop_per_byte, g.time_s * 1e3, g.attained_flops_per_s() / 1e12,
                  to_string(g.bound));
    out << line;
  }
  out << "\n";
}

nlohmann::json to_json(const DeviceRoofline& d) {
  nlohmann::json substituted = nlohmann::json::array();
  for (FusedAttention kernel : d.attention_priced_as_flash2) substituted.push_back(std::string(to_string(kernel)));
  nlohmann::json groups = nlohmann::json::array();
  for (const RooflineGroup& g : d.groups) {
    groups.push_back({{"name", g.name},
                      {"kind", std::string(to_string(g.kind))},
                      {"ops", g.ops},
                      {"flops", g.flops},
                      {"bytes", g.bytes},
                      {"intensity_flop_per_byte", g.intensity_flop_per_byte()},
                      {"ridge_flop_per_byte", g.ridge_flop_per_byte},
                      {"time_s", g.time_s},
                      {"compute_time_s", g.compute_time_s},
                      {"memory_time_s", g.memory_time_s},
                      {"attained_flops_per_s", g.attained_flops_per_s()},
                      {"bound", to_string(g.bound)}});
  }
  return {{"id", d.id},
          {"name", d.name},
          {"memory_kind", d.memory_kind},
          {"matrix_dtype", std::string(to_string(d.matrix_dtype))},
          {"peak_matrix_flops_per_s", d.peak_matrix_flops_per_s},
          {"peak_vector_flops_per_s", d.peak_vector_flops_per_s},
          {"peak_bandwidth_bytes_per_s", d.peak_bandwidth_bytes_per_s},
          {"sustained_bandwidth_bytes_per_s", d.sustained_bandwidth_bytes_per_s},
          {"matrix_ridge_flop_per_byte", d.matrix_ridge_flop_per_byte()},
          {"vector_ridge_flop_per_byte", d.vector_ridge_flop_per_byte()},
          {"attention_priced_as_flash2", substituted},
          {"groups", groups}};
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& json) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write the roofline JSON to '" + path.string() + "'");
  file << json.dump(2) << "\n";
}

}  // namespace

po::options_description roofline_options() {
  po::options_description named;
  named.add_options()("device", po::value<std::vector<std::string>>()->multitoken()->value_name("ID..."),
                      "catalogue ids of the GPUs or CPUs to place the ops on (default: the rank's GPU); CPUs need "
                      "peak_dense and compute_model in cpus.yaml")(
      "rank", po::value<std::uint32_t>()->default_value(0)->value_name("R"), "the rank whose ops are placed")(
      "json", po::value<std::string>()->value_name("FILE"),
      "write every device's groups as JSON (FLOPs, bytes, FLOP/B, seconds, FLOP/s; docs/output.md)")(
      "plot", po::value<std::string>()->value_name("DIR"), "draw the roofline chart DIR/roofline.png");
  add_set_option(named);
  return named;
}

int roofline_command_main(const ParsedOptions& options, std::ostream& out) {
  const ConfigOverrides overrides = set_overrides(options);
  const Scenario s = load_scenario(options.positionals[0], ScenarioOptions{true, false, overrides, false, nullptr});
  if (s.workload.inference)
    throw UsageError(
        "an inference workload (task: inference) has no single step to place; `simctl run` prints "
        "its decode roofline");
  const std::uint32_t rank = options.values["rank"].as<std::uint32_t>();
  if (rank >= s.trace.rank_count())
    throw UsageError("--rank " + std::to_string(rank) + " is not a rank of this config (it has " +
                     std::to_string(s.trace.rank_count()) + ")");
  // Every device is looked up before anything is printed: a bad id prints nothing but its error.
  std::vector<GpuSpec> devices;
  for (const std::string& id : device_ids(options, s, rank)) {
    try {
      devices.push_back(roofline_device(s.catalogue, id));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--device: ") + e.what());
    }
  }
  const std::vector<OpGroup> groups = group_compute_ops(s.trace.ops(rank));
  out << s.labels.workload << "\n";
  out << "rank " << rank << ": " << groups.size() << " op groups (layers together), compute dtype "
      << to_string(s.trace.compute_dtype) << "\n";
  out << "FLOP/B: arithmetic intensity; ridge FLOP/B: the group's sustained FLOP/s over sustained bandwidth, above "
         "which it is compute-bound; bound: of most of its time\n\n";
  nlohmann::json rooflines = nlohmann::json::array();
  for (const GpuSpec& device : devices) {
    const DeviceRoofline roofline = price_roofline(device, groups, s.trace.compute_dtype);
    print_device(roofline, out);
    rooflines.push_back(to_json(roofline));
  }
  const nlohmann::json json{{"workload", s.labels.workload}, {"rank", rank}, {"devices", rooflines}};
  std::string json_path = string_option(options, "json");
  if (!json_path.empty()) write_json_file(json_path, json);
  if (const std::string plot = string_option(options, "plot"); !plot.empty()) {
    std::filesystem::create_directories(plot);
    if (json_path.empty()) {
      json_path = (std::filesystem::path(plot) / "roofline.json").string();
      write_json_file(json_path, json);
    }
    require_matplotlib();
    const auto png = run_plot_script("roofline.py", "--json " + shell_quoted(json_path),
                                     std::filesystem::path(plot) / "roofline.png");
    out << "wrote " << png.string() << "\n";
  }
  return 0;
}

}  // namespace simctl
