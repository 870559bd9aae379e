#include "sim/report/plot_script.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <stdexcept>

#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

int run_shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return status == -1 ? -1 : WEXITSTATUS(status);
}

}  // namespace

std::filesystem::path plots_dir() { return std::filesystem::path(data_root()) / "plots"; }

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void require_matplotlib() {
  if (run_shell(std::string(kPython) + " -c 'import matplotlib' >/dev/null 2>&1") != 0) {
    throw std::runtime_error(std::string("--plot needs ") + kPython +
                             " with matplotlib (Debian package python3-matplotlib; scripts/setup installs it)");
  }
}

std::filesystem::path run_plot_script(const std::string& script, const std::string& args,
                                      const std::filesystem::path& png) {
  const auto path = plots_dir() / script;
  const std::string command = std::string(kPython) + " " + shell_quoted(path.string()) + " " + args + " --out " +
                              shell_quoted(png.string()) + " >/dev/null";
  if (const int code = run_shell(command); code != 0) {
    throw std::runtime_error("plots/" + script + " failed with exit code " + std::to_string(code) + " (" + command +
                             ")");
  }
  return png;
}

}  // namespace simctl
