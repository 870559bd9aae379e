// simctl's entry point: maps uncaught failures to a message and exit code 1.
// Bad input and usage errors are handled (exit 2) in run_main.
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/command.hpp"

int main(int argc, char** argv) {
  try {
    return simctl::run_main(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "simctl: error: " << e.what() << "\n";
    return 1;
  }
}
