// simctl: the command-line front end. Parses arguments, loads a scenario,
// runs it and prints the report. All validation lives in the loaders; this
// file only maps failures to messages and exit codes.
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/config/config_error.hpp"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage =
    "usage: simctl <command> [options]\n"
    "\n"
    "commands:\n"
    "  run CONFIG [--json FILE]   simulate one training step and print the report\n"
    "  check CONFIG               validate a config without running it\n"
    "\n"
    "options:\n"
    "  -h, --help                 show this help\n"
    "  --version                  show the version\n";

int dispatch(const std::vector<std::string>& args) {
  po::options_description options;
  options.add_options()("help,h", "")("version", "")("json", po::value<std::string>(), "")(
      "command", po::value<std::string>(), "")("config", po::value<std::string>(), "");
  po::positional_options_description positional;
  positional.add("command", 1).add("config", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  po::notify(vm);

  if (vm.count("version")) {
    std::cout << "simctl " << simctl::kVersion << "\n";
    return 0;
  }
  if (vm.count("help") || !vm.count("command")) {
    std::cout << kUsage;
    return vm.count("help") ? 0 : 2;
  }
  const std::string command = vm["command"].as<std::string>();
  if (command != "run" && command != "check") {
    std::cerr << "simctl: unknown command '" << command << "'; valid commands are run and check\n" << kUsage;
    return 2;
  }
  if (!vm.count("config")) {
    std::cerr << "simctl: '" << command << "' needs a CONFIG file, e.g. simctl " << command
              << " configs/dgx_h100_x8.yaml\n";
    return 2;
  }
  const std::string config = vm["config"].as<std::string>();
  if (command == "check") return simctl::check_command(config, std::cout);
  const std::string json = vm.count("json") ? vm["json"].as<std::string>() : "";
  return simctl::run_command(config, json, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const simctl::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "simctl: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simctl: error: " << e.what() << "\n";
    return 1;
  }
}
