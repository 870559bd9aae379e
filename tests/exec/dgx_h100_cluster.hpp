#pragma once
// A system file of DGX H100 nodes on a generated fabric, written into a test's
// scratch folder: the cluster the executor tests build their runs on.
#include <fstream>
#include <string>

#include "tests/report/report_outputs.hpp"

namespace simctl::testing {

// `nodes` DGX H100 nodes named `name` on `fabric` (a YAML flow mapping, the
// system's `fabric:`), as `dir`/system.yaml; returns its path.
inline std::string write_dgx_h100_cluster(const TempDir& dir, const std::string& name, const std::string& fabric,
                                          int nodes) {
  const auto path = dir.path() / "system.yaml";
  std::ofstream(path) << "system:\n"
                      << "  name: " << name << "\n"
                      << "  node_templates:\n"
                      << "    dgx_h100: {import: " << source_path("configs/systems/dgx_h100.yaml") << "}\n"
                      << "  nodes:\n"
                      << "    - {template: dgx_h100, count: " << nodes << "}\n"
                      << "  fabric: " << fabric << "\n";
  return path.string();
}

}  // namespace simctl::testing
