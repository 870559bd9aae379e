// `simctl import chakra ET... -o OUT.json` and `simctl export chakra CONFIG
// DIR`: simctl traces to and from Chakra execution traces, ASTRA-sim's
// workload format (workloads/chakra/chakra_et.hpp).
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/cli/exportable_step.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/set_option.hpp"
#include "sim/scenario/scenario.hpp"
#include "workloads/chakra/chakra_et.hpp"
#include "workloads/trace_json.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--comm-groups " + path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int run_import_chakra(const ParsedOptions& options, std::ostream& out) {
  ChakraImportOptions import;
  if (options.values.count("gpu")) {
    import.measured_on = options.values["gpu"].as<std::string>();
    require_catalogue_gpu(import.measured_on);
  }
  if (options.values.count("comm-groups")) {
    import.comm_groups_label = options.values["comm-groups"].as<std::string>();
    import.comm_groups_json = read_text(import.comm_groups_label);
  }
  const ChakraImport result = import_chakra(options.positionals, import);
  const std::string path = options.values["out"].as<std::string>();
  write_trace_file(path, result.trace, result.description);
  out << "wrote " << path << ": " << result.trace.ranks.size() << " ranks, " << result.trace.op_count() << " ops, "
      << result.trace.groups.size() << " groups"
      << (result.simctl_written ? " (ETs simctl wrote: the exported trace, exactly)" : "") << "\n";
  return 0;
}

}  // namespace

po::options_description import_chakra_options() {
  po::options_description named;
  named.add_options()("out,o", po::value<std::string>()->value_name("OUT.json")->required(),
                      "the simctl trace to write")(
      "gpu", po::value<std::string>()->value_name("MODEL"),
      "the catalogue GPU the nodes' duration_micros were measured on (needed when a GPU node has one)")(
      "comm-groups", po::value<std::string>()->value_name("FILE"),
      "ASTRA-sim's communicator-group file ({\"1\": [0, 1], ...}) for collectives whose pg_name names a group");
  return named;
}

// Bad ETs are bad input, as a bad config is: one line, exit code 2.
int import_chakra_command_main(const ParsedOptions& options, std::ostream& out) {
  try {
    return run_import_chakra(options, out);
  } catch (const ChakraError& e) {
    throw UsageError(e.what());
  }
}

po::options_description export_chakra_options() {
  po::options_description named;
  named.add_options()("prefix", po::value<std::string>()->value_name("NAME")->default_value("simctl"),
                      "file names: DIR/NAME.<rank>.et and DIR/NAME.comm_groups.json (ASTRA-sim's workload prefix)");
  add_set_option(named);
  return named;
}

int export_chakra_command_main(const ParsedOptions& options, std::ostream& out) {
  const Scenario s = load_exportable_step(options);
  const std::string dir = options.positionals[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create the directory '" + dir + "': " + ec.message());
  try {
    const ChakraExport written =
        export_chakra(s.trace, s.labels.workload, dir, options.values["prefix"].as<std::string>());
    out << "wrote " << written.et_paths.size() << " Chakra ETs (" << s.trace.op_count() << " nodes) and "
        << written.comm_groups_path << "\n";
  } catch (const ChakraError& e) {
    throw UsageError(e.what());
  }
  return 0;
}

}  // namespace simctl
