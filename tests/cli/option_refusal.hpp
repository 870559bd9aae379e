#pragma once
// Bad command-line values (--set, --axis): the binary refuses each with exit
// code 2, a message that starts with the option as typed, says what is
// wrong, and prints nothing on stdout.
#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>

#include "tests/cli/run_binary.hpp"

namespace simctl::testing {

struct Refusal {
  const char* value;  // what follows the option, as typed
  const char* says;   // a part of the message
};

// Runs `command` + " OPTION 'value'" for each case.
inline void check_refusals(const std::string& command, const std::string& option,
                           std::initializer_list<Refusal> cases) {
  for (const Refusal& c : cases) {
    INFO(option << " " << c.value);
    const auto r = run_simctl(command + " " + option + " '" + c.value + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(option + " " + c.value + ": ", 0) == 0);
    CHECK_THAT(r.err, Catch::Contains(c.says));
    CHECK(r.out.empty());
  }
}

}  // namespace simctl::testing
