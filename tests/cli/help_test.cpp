// `simctl --help` and every command's --help, run through the binary: each
// prints its usage, summary and every option it parses with, and exits 0.
#include <catch2/catch.hpp>

#include "sim/cli/command.hpp"
#include "tests/cli/run_binary.hpp"

using simctl::testing::run_simctl;

namespace {

// "--json", "--csv", ... : the long name of every option `command` parses with.
std::vector<std::string> option_names(const simctl::Command& command) {
  std::vector<std::string> names;
  const auto options = command.options();
  for (const auto& option : options.options()) names.push_back("--" + option->long_name());
  return names;
}

}  // namespace

TEST_CASE("every command's --help and -h print its usage and every option, exit 0", "[cli][help]") {
  for (const simctl::Command& command : simctl::all_commands()) {
    for (const char* flag : {"--help", "-h"}) {
      const auto r = run_simctl(std::string(command.name) + " " + flag);
      INFO(command.name << " " << flag << ": " << r.err);
      CHECK(r.exit_code == 0);
      CHECK(r.err.empty());
      CHECK_THAT(r.out, Catch::StartsWith("usage: simctl " + std::string(command.usage) + "\n" + command.summary));
      CHECK_THAT(r.out, Catch::Contains("--help"));
      for (const std::string& name : option_names(command)) CHECK_THAT(r.out, Catch::Contains(name));
    }
  }
}

TEST_CASE("every option has a description", "[cli][help]") {
  for (const simctl::Command& command : simctl::all_commands()) {
    const auto options = command.options();
    for (const auto& option : options.options()) {
      INFO(command.name << " --" << option->long_name());
      CHECK(option->description().size() > 10);
    }
  }
}

TEST_CASE("the options the issue found missing are listed with their defaults and units", "[cli][help]") {
  const auto run = run_simctl("run --help");
  for (const char* name : {"--json FILE", "--csv DIR", "--trace FILE", "--plot DIR", "--ignore-memory"}) {
    CHECK_THAT(run.out, Catch::Contains(name));
  }
  const auto collective = run_simctl("collective --help");
  CHECK_THAT(collective.out, Catch::Contains("--sharp"));
  CHECK_THAT(collective.out, Catch::Contains("--max SIZE (=128MiB)"));
  CHECK_THAT(collective.out, Catch::Contains("bytes with a unit"));
  CHECK_THAT(collective.out, Catch::Contains("halving_doubling"));  // the valid algorithms, from their enum
  const auto transfer = run_simctl("transfer --help");
  CHECK_THAT(transfer.out, Catch::Contains("--host-memory KIND (=pinned)"));
  CHECK_THAT(transfer.out, Catch::Contains("--max SIZE (=1GiB)"));
}

TEST_CASE("--help after a command's arguments prints help instead of running", "[cli][help]") {
  const auto r = run_simctl("run configs/dgx_h100_x8.yaml --json /nonexistent/dir/report.json --help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("usage: simctl run CONFIG"));
  CHECK_THAT(r.out, Catch::Contains("--ignore-memory"));
  CHECK_FALSE(r.out.find("Step time") != std::string::npos);
}

TEST_CASE("top-level help names every option of every command", "[cli][help]") {
  const auto r = run_simctl("--help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("simctl <command> --help"));
  for (const simctl::Command& command : simctl::all_commands()) {
    INFO(command.name);
    CHECK_THAT(r.out, Catch::Contains(std::string("  ") + command.usage + "\n"));
    CHECK_THAT(r.out, Catch::Contains(command.summary));
    for (const std::string& name : option_names(command)) CHECK_THAT(r.out, Catch::Contains(name));
  }
  for (const char* name : {"--csv", "--trace", "--plot", "--sharp", "--ignore-memory"}) {
    CHECK_THAT(r.out, Catch::Contains(name));
  }
}

TEST_CASE("an unknown option points at the command's help", "[cli][help]") {
  const auto r = run_simctl("run configs/dgx_h100_x8.yaml --jsn report.json");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("simctl run --help"));
}

// `simctl lab --help` had exited 2 ("unknown command 'lab'"): a first word
// of two-word commands is a group whose --help lists them.
TEST_CASE("a command group's --help lists its commands, alone it says which are valid", "[cli][help]") {
  for (const char* flag : {"--help", "-h"}) {
    const auto help = run_simctl(std::string("lab ") + flag);
    INFO(help.err);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::StartsWith("usage: simctl lab <command>"));
    CHECK_THAT(help.out, Catch::Contains("lab list"));
    CHECK_THAT(help.out, Catch::Contains("lab run N [--plot DIR]"));
  }
  const auto bare = run_simctl("lab");
  CHECK(bare.exit_code == 2);
  CHECK_THAT(bare.err, Catch::Contains("valid commands are lab list, lab run"));
  const auto wrong = run_simctl("lab runn 2");
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.err, Catch::Contains("unknown command 'lab runn'"));
}

// sweep --help had named shard files DIR/shard-I-of-N.json; they are
// written zero-padded.
TEST_CASE("sweep --help names shard files as the sweep writes them", "[cli][help]") {
  const auto help = run_simctl("sweep --help");
  CHECK_THAT(help.out, Catch::Contains("DIR/shard-0001-of-0002.json"));
  CHECK_THAT(help.out, !Catch::Contains("shard-I-of-N"));
}
