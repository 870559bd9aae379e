#include "sim/report/plots.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <stdexcept>

#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int run_shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return status == -1 ? -1 : WEXITSTATUS(status);
}

void check_matplotlib() {
  if (run_shell(std::string(kPython) + " -c 'import matplotlib' >/dev/null 2>&1") != 0) {
    throw std::runtime_error(std::string("--plot needs ") + kPython +
                             " with matplotlib (Debian package python3-matplotlib; scripts/setup installs it)");
  }
}

std::filesystem::path run_script(const std::string& script, const std::string& args, const std::filesystem::path& png) {
  const auto path = plots_dir() / script;
  const std::string command = std::string(kPython) + " " + quoted(path.string()) + " " + args + " --out " +
                              quoted(png.string()) + " >/dev/null";
  if (const int code = run_shell(command); code != 0) {
    throw std::runtime_error("plots/" + script + " failed with exit code " + std::to_string(code) + " (" + command +
                             ")");
  }
  return png;
}

}  // namespace

std::filesystem::path plots_dir() { return std::filesystem::path(data_root()) / "plots"; }

std::vector<std::filesystem::path> render_plots(const PlotRequest& request) {
  check_matplotlib();
  std::filesystem::create_directories(request.out_dir);
  const std::string json = "--json " + quoted(request.json_file.string());
  std::string ranks;
  for (std::uint32_t r : request.timeline_ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
  std::vector<std::filesystem::path> written;
  written.push_back(run_script("breakdown.py", json, request.out_dir / "breakdown.png"));
  written.push_back(run_script("timeline.py",
                               json + " --ops " + quoted((request.csv_dir / "ops.csv").string()) + " --ranks " + ranks,
                               request.out_dir / "timeline.png"));
  written.push_back(run_script("link_heatmap.py", json + " --links " + quoted((request.csv_dir / "links.csv").string()),
                               request.out_dir / "link_heatmap.png"));
  if (request.memory) written.push_back(run_script("memory.py", json, request.out_dir / "memory.png"));
  return written;
}

std::vector<std::uint32_t> spread_ranks(std::uint32_t ranks, std::uint32_t count) {
  std::vector<std::uint32_t> out;
  if (ranks == 0 || count == 0) return out;
  if (ranks <= count) {
    for (std::uint32_t r = 0; r < ranks; ++r) out.push_back(r);
    return out;
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    out.push_back(count == 1 ? 0 : static_cast<std::uint32_t>(std::uint64_t{i} * (ranks - 1) / (count - 1)));
  }
  return out;
}

}  // namespace simctl
