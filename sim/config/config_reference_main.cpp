// simctl-config-reference: prints docs/config.md's field reference, rendered
// from sim/config/config_schema.yaml, or with --update FILE rewrites the
// generated block of FILE in place. Developer tool; tests/config checks the
// block in docs/config.md equals what this prints.
#include <cstring>
#include <iostream>
#include <string>

#include "sim/config/schema_markdown.hpp"
#include "sim/core/text_file.hpp"

namespace {

void update(const std::string& path, const std::string& block) {
  simctl::write_text_file(path, simctl::replace_generated_block(simctl::read_text_file(path), block));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string block = simctl::render_schema_markdown(simctl::config_schema());
    if (argc == 1) {
      std::cout << block << "\n";
      return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "--update") == 0) {
      update(argv[2], block);
      return 0;
    }
    std::cerr << "usage: simctl-config-reference [--update docs/config.md]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simctl-config-reference: " << e.what() << "\n";
    return 1;
  }
}
