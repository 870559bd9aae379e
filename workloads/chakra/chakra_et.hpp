#pragma once
// simctl traces as Chakra execution traces (mlcommons/chakra's protobuf ET,
// the workload format of ASTRA-sim), both ways:
//   - export: one ET per rank, `DIR/PREFIX.<rank>.et` (ASTRA-sim's naming),
//     and `DIR/PREFIX.comm_groups.json` (its --comm-group-configuration);
//     every node carries Chakra's own fields for ASTRA-sim and the simctl op
//     it came from, so importing the files gives the trace back exactly;
//   - import: ETs simctl wrote, exactly; any other Chakra ET by its nodes'
//     types, dependencies and attributes (docs/trace-format.md, "Chakra").
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/trace.hpp"

namespace simctl {

// Bad input: names the file and the node (or the file alone).
struct ChakraError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ChakraExport {
  std::vector<std::string> et_paths;  // one per rank, in rank order
  std::string comm_groups_path;
};
ChakraExport export_chakra(const Trace& trace, const std::string& description, const std::string& dir,
                           const std::string& prefix);

struct ChakraImportOptions {
  // The catalogue GPU that foreign COMP nodes' duration_micros were measured
  // on; empty: such a node is an error.
  std::string measured_on;
  // ASTRA-sim's communicator groups ({"1": [0, 1], ...}) for foreign
  // collectives whose pg_name is not empty or "0"; empty: such a node is an
  // error.
  std::string comm_groups_json;
  std::string comm_groups_label;  // for errors
};

struct ChakraImport {
  Trace trace;
  std::string description;
  bool simctl_written = false;  // every file carried simctl's ops
};
// `paths` in rank order: file i is rank i.
ChakraImport import_chakra(const std::vector<std::string>& paths, const ChakraImportOptions& options);

}  // namespace simctl
