// `simctl import kineto TRACE.json[.gz]... -o OUT.json`: PyTorch profiler
// traces, one per rank, as a simctl trace whose kernels keep their measured
// times (workloads/kineto_import.hpp). The trace then replays with
// `workload: {trace: OUT.json}` on the system it was profiled on, or on
// another, where the compute model rescales each kernel.
#include <boost/program_options.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "models/devices/device_catalogue.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/config/gzip_file.hpp"
#include "sim/config/quantity.hpp"
#include "workloads/kineto_import.hpp"
#include "workloads/trace_json.hpp"
#include "workloads/trace_json_names.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

KinetoFile load_file(const std::string& path) {
  KinetoFile file{path, {}};
  std::string text;
  try {
    text = read_possibly_gzipped(path);
  } catch (const FileReadError& e) {
    throw UsageError(e.what());
  }
  try {
    file.document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw KinetoError(path + ": not valid JSON (byte " + std::to_string(e.byte) + "): the file is cut short or " +
                      "is not a Kineto trace");
  } catch (const nlohmann::json::exception& e) {  // a number out of range (1e999)
    throw KinetoError(path + ": not a Kineto trace: " + e.what());
  }
  return file;
}

// The catalogue model whose name holds the profiled device's model ("A100"
// in "NVIDIA A100-PG509-200"), when exactly one does.
std::string detect_gpu(const std::string& device, const DeviceCatalogue& catalogue) {
  std::string token = device;
  for (const char* prefix : {"NVIDIA ", "AMD ", "Instinct "}) {
    if (token.rfind(prefix, 0) == 0) token = token.substr(std::string(prefix).size());
  }
  token = token.substr(0, token.find_first_of(" -"));
  std::vector<std::string> matches;
  for (const std::string& id : catalogue.gpu_ids()) {
    if (!token.empty() && catalogue.gpu(id).name.find(token) != std::string::npos) matches.push_back(id);
  }
  if (matches.size() == 1) return matches.front();
  std::string listed;
  for (const std::string& id : matches.empty() ? catalogue.gpu_ids() : matches)
    listed += (listed.empty() ? "" : ", ") + id;
  throw UsageError("the trace was profiled on '" + (device.empty() ? std::string("an unnamed GPU") : device) +
                   "'; say which catalogue GPU that is with --gpu MODEL, one of " + listed);
}

}  // namespace

void require_catalogue_gpu(const std::string& model) {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  if (catalogue.find_gpu(model)) return;
  std::string models;
  for (const std::string& id : catalogue.gpu_ids()) models += (models.empty() ? "" : ", ") + id;
  throw UsageError("--gpu " + model + ": not a GPU model of the catalogue; use one of " + models);
}

po::options_description import_kineto_options() {
  po::options_description named;
  named.add_options()("out,o", po::value<std::string>()->value_name("OUT.json")->required(),
                      "the simctl trace to write")(
      "gpu", po::value<std::string>()->value_name("MODEL"),
      "the catalogue GPU the trace was profiled on (default: from the trace's deviceProperties)")(
      "ranks", po::value<std::uint32_t>()->value_name("N"),
      "ranks to write (default: the traces' world size); ranks without a file replay one that has")(
      "step", po::value<std::int64_t>()->value_name("K"), "take ProfilerStep#K (default: the median step)")(
      "dtype", po::value<std::string>()->value_name("DTYPE")->default_value("bf16"),
      ("the format of kernels whose name says none: " + dtype_choices() + " (rescaling to another GPU only)").c_str());
  return named;
}

int run_import_kineto(const ParsedOptions& options, std::ostream& out) {
  std::vector<KinetoFile> files;
  for (const std::string& path : options.positionals) files.push_back(load_file(path));
  KinetoImportOptions import;
  if (options.values.count("gpu")) {
    import.measured_on = options.values["gpu"].as<std::string>();
    require_catalogue_gpu(import.measured_on);
  } else {
    import.measured_on = detect_gpu(kineto_device_name(files.front().document), DeviceCatalogue::load());
  }
  if (options.values.count("ranks")) import.ranks = options.values["ranks"].as<std::uint32_t>();
  if (options.values.count("step")) import.step = options.values["step"].as<std::int64_t>();
  const std::string dtype = options.values["dtype"].as<std::string>();
  const auto parsed = trace_names::value_of(trace_names::kDTypes, dtype);
  if (!parsed) throw UsageError("--dtype " + dtype + ": use " + dtype_choices());
  import.compute_dtype = *parsed;

  const KinetoImport result = import_kineto(files, import);
  const std::string path = options.values["out"].as<std::string>();
  write_trace_file(path, result.trace, result.description);
  for (const auto& step : result.steps) {
    char line[256];
    std::snprintf(line, sizeof line, "%s: ProfilerStep#%lld, %.3f ms profiled, %zu GPU ops\n", step.file.c_str(),
                  static_cast<long long>(step.number), step.profiled_seconds * 1e3, step.gpu_ops);
    out << line;
  }
  out << "wrote " << path << ": " << result.trace.ranks.size() << " ranks, " << result.trace.op_count() << " ops, "
      << result.trace.groups.size() << " groups, kernels measured on " << result.trace.measured_on << "\n";
  return 0;
}

// A trace that cannot be imported is bad input, as a bad config is: one line
// naming the file and the event, exit code 2.
int import_kineto_command_main(const ParsedOptions& options, std::ostream& out) {
  try {
    return run_import_kineto(options, out);
  } catch (const KinetoError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace simctl
