#pragma once
// Runs one of the matplotlib scripts in plots/ through /usr/bin/python3
// (Debian's python3-matplotlib), for `simctl run --plot` and
// `simctl sweep --plot` alike.
#include <filesystem>
#include <string>

namespace simctl {

// The scripts' folder: $SIMCTL_DATA_DIR/plots or the source tree's.
std::filesystem::path plots_dir();

// `text` in single quotes for /bin/sh, embedded quotes escaped.
std::string shell_quoted(const std::string& text);

// Throws std::runtime_error naming the Debian package when python3 cannot
// import matplotlib.
void require_matplotlib();

// Runs plots/`script` with `args` (already quoted) and `--out png`; returns
// `png`. Throws std::runtime_error naming the script, its exit code and the
// command when it fails (the script's one-line error is on stderr).
std::filesystem::path run_plot_script(const std::string& script, const std::string& args,
                                      const std::filesystem::path& png);

}  // namespace simctl
