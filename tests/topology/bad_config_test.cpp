// Every kind of bad system input has a fixture under bad_configs/. Each test
// checks the message names the file, the line and column of the offending
// text (found by searching the fixture, not copied from the output), the
// field, and what would be valid.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

const std::string kDir = "tests/topology/bad_configs/";

struct BadInput {
  const char* file;
  int line;
  const char* token;  // the error must point at the first occurrence of this on `line`
  std::string field;
  std::vector<const char*> says;  // what is wrong and what would be valid
};

std::string line_of(const std::string& path, int line) {
  std::ifstream in(path);
  std::string text;
  for (int i = 0; i < line && std::getline(in, text); ++i) {
  }
  return text;
}

std::string position(const BadInput& bad) {
  const std::string path = kDir + bad.file;
  const auto column = line_of(path, bad.line).find(bad.token);
  REQUIRE(column != std::string::npos);
  return path + ":" + std::to_string(bad.line) + ":" + std::to_string(column + 1) + ": error";
}

void check_bad_input(const BadInput& bad) {
  INFO(bad.file);
  const std::string msg = test::config_error_of([&] { test::system_from_file(kDir + bad.file); });
  REQUIRE_FALSE(msg.empty());
  CHECK_THAT(msg, Catch::StartsWith(position(bad)));
  CHECK_THAT(msg, Catch::Contains(std::string("field '") + bad.field + "'"));
  for (const char* s : bad.says) CHECK_THAT(msg, Catch::Contains(s));
}

const std::string kLinks = "system.node_templates.box.links";
const std::string kParts = "system.node_templates.box.parts";

}  // namespace

TEST_CASE("an unknown field names the valid fields", "[topology][bad_config]") {
  check_bad_input({"unknown_field.yaml",
                   11,
                   "bandwith",
                   "system.node_templates.box.links[1].bandwith",
                   {"unknown field", "between, kind, bandwidth, latency or pairing"}});
}

TEST_CASE("an unknown part kind lists the part kinds", "[topology][bad_config]") {
  check_bad_input(
      {"unknown_part_kind.yaml",
       7,
       "tpu",
       "system.node_templates.box.parts.gpu.kind",
       {"unknown part kind 'tpu'", "cpu_socket, dram, gpu, nic, pcie_switch, nvswitch, network_switch or storage"}});
}

TEST_CASE("an unknown device model lists the catalogue's models of that kind", "[topology][bad_config]") {
  std::vector<const char*> says{"unknown gpu model 'h100-sxm5'", "the catalogue's gpu models are"};
  std::vector<std::string> ids = test::catalogue().gpu_ids();
  for (const std::string& id : ids) says.push_back(id.c_str());
  check_bad_input({"unknown_device_model.yaml", 7, "h100-sxm5", "system.node_templates.box.parts.gpu.model", says});
}

TEST_CASE("an unknown link kind lists the link kinds", "[topology][bad_config]") {
  check_bad_input(
      {"unknown_link_kind.yaml",
       10,
       "nvlink9",
       "system.node_templates.box.links[0].kind",
       {"unknown link kind 'nvlink9'", "pcie_gen5_x16", "nvlink4", "infiniband_ndr", "memory_bus", "upi or xgmi"}});
}

TEST_CASE("a link to a missing part lists the template's parts", "[topology][bad_config]") {
  check_bad_input({"missing_part.yaml",
                   10,
                   "nvswtich",
                   "system.node_templates.box.links[0].between[1]",
                   {"no part 'nvswtich' in template 'box'", "its parts are cpu, gpu or nvswitch"}});
  check_bad_input({"part_out_of_range.yaml",
                   11,
                   "\"gpu[2]\"",
                   "system.node_templates.box.links[1].between[0]",
                   {"'gpu[2]' is out of range", "template 'box' has gpu[0..1]"}});
}

TEST_CASE("bandwidths need a unit and a positive value", "[topology][bad_config]") {
  check_bad_input({"bad_bandwidth_unit.yaml",
                   10,
                   "450 GBps",
                   "system.node_templates.box.links[0].bandwidth",
                   {"'450 GBps' is not a bandwidth", "Gb/s", "GB/s"}});
  check_bad_input(
      {"negative_bandwidth.yaml", 10, "-450", "system.node_templates.box.links[0].bandwidth", {"must be positive"}});
}

TEST_CASE("a count must be positive", "[topology][bad_config]") {
  check_bad_input(
      {"zero_count.yaml", 7, "0}", "system.node_templates.box.parts.gpu.count", {"must be a positive integer, got 0"}});
}

TEST_CASE("a disconnected GPU is named", "[topology][bad_config]") {
  check_bad_input({"disconnected_gpu.yaml",
                   7,
                   "{kind: gpu",
                   "system.node_templates.box.parts.gpu",
                   {"GPU 'node0.gpu2' has no path to any other GPU"}});
  check_bad_input({"gpu_without_cpu.yaml",
                   7,
                   "{kind: gpu",
                   "system.node_templates.box.parts.gpu",
                   {"GPU 'node0.gpu0' has no path to any CPU socket"}});
  check_bad_input({"split_system.yaml",
                   7,
                   "{kind: gpu",
                   "system.node_templates.box.parts.gpu",
                   {"GPU 'node1.gpu0' has no path to GPU 'node0.gpu0'", "system-level links"}});
}

TEST_CASE("duplicate part names are refused", "[topology][bad_config]") {
  check_bad_input({"duplicate_part_name.yaml",
                   9,
                   "{kind: gpu",
                   "system.node_templates.box.parts.gpu1",
                   {"part name 'node0.gpu1' is used twice", "rename one of the groups"}});
  check_bad_input({"duplicate_group.yaml",
                   9,
                   "{kind: gpu",
                   "system.node_templates.box.parts.gpu",
                   {"part group 'gpu' is declared twice"}});
}

TEST_CASE("links that cannot be built say why", "[topology][bad_config]") {
  check_bad_input({"parallel_cable.yaml",
                   11,
                   "{between",
                   "system.node_templates.box.links[1]",
                   {"a cable already joins 'node0.nvswitch' and 'node0.gpu1'", "combined bandwidth"}});
  check_bad_input({"bad_pairing.yaml",
                   10,
                   "{between",
                   "system.node_templates.box.links[0]",
                   {"3 parts with 2", "one_to_one, round_robin or all_to_all"}});
}

TEST_CASE("an unknown template lists the templates", "[topology][bad_config]") {
  check_bad_input({"unknown_template.yaml",
                   13,
                   "dgx",
                   "system.nodes[0].template",
                   {"unknown node template 'dgx'", "templates under node_templates are box"}});
}

TEST_CASE("a YAML syntax error carries its file and line", "[topology][bad_config]") {
  // Unquoted brackets in a flow list: '[gpu[*], ...]' must be written '["gpu[*]", ...]'.
  const std::string msg = test::config_error_of([] { test::system_from_file(kDir + "syntax_error.yaml"); });
  CHECK_THAT(msg, Catch::StartsWith(kDir + "syntax_error.yaml:10:"));
  CHECK_THAT(msg, Catch::Contains("YAML syntax error"));
}

TEST_CASE("bad system-level selectors name the nodes and parts", "[topology][bad_config]") {
  const std::string base = R"(system:
  name: x
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
        gpu: {kind: gpu, model: h100-sxm}
        nic: {kind: nic, model: connectx-7-ndr}
      links:
        - {between: [gpu, cpu], kind: pcie_gen5_x16}
        - {between: [nic, cpu], kind: pcie_gen5_x16}
  nodes: [{template: box, count: 2}]
  parts:
    leaf: {kind: network_switch}
  links:
)";
  auto error_for = [&](const std::string& link) {
    return test::config_error_of([&] { test::system_from_text(base + "    - " + link + "\n", "s.yaml"); });
  };
  CHECK(error_for(R"({between: ["node[*].nic", leaf], kind: infiniband_ndr})").empty());
  CHECK_THAT(error_for(R"({between: ["node[0..2].nic", leaf], kind: infiniband_ndr})"),
             Catch::Contains("names nodes past the last; the system has node[0..1]"));
  CHECK_THAT(error_for(R"({between: ["node[*].nics", leaf], kind: infiniband_ndr})"),
             Catch::Contains("node 0 (template 'box') has no part 'nics'; its parts are cpu, gpu or nic"));
  CHECK_THAT(error_for(R"({between: ["node[*].nic", spine], kind: infiniband_ndr})"),
             Catch::Contains("no part 'spine' at the system level; its parts are leaf"));
  CHECK_THAT(error_for(R"({between: ["node[*].nic", "leaf["], kind: infiniband_ndr})"),
             Catch::StartsWith("s.yaml:16:33: error: field 'system.links[0].between[1]'"));
}

TEST_CASE("a fabric oversubscription below 1 is refused", "[topology][bad_config][fabric]") {
  check_bad_input({"fabric_undersubscribed.yaml",
                   18,
                   "0.5",
                   "system.fabric.oversubscription",
                   {"must be at least 1", "2 = 2:1", "got 0.5"}});
}

TEST_CASE("a fabric radix too small for the nodes says how many leaves it needs", "[topology][bad_config][fabric]") {
  check_bad_input({"fabric_radix_too_small.yaml",
                   14,
                   "8, link",
                   "system.fabric.radix",
                   {"radix 8 is too small for 40 NICs", "at most 8 leaves", "need 10 leaves", "add a tier"}});
}

TEST_CASE("a fabric with an unsupported tier count lists the valid ones", "[topology][bad_config][fabric]") {
  check_bad_input({"fabric_tiers.yaml", 14, "4, radix", "system.fabric.tiers", {"1, 2 or 3 tiers", "got 4"}});
}

TEST_CASE("a fabric joins NICs only", "[topology][bad_config][fabric]") {
  check_bad_input({"fabric_not_nics.yaml",
                   14,
                   "\"gpu[*]\"",
                   "system.fabric.nics",
                   {"the fabric joins NICs", "'gpu' in node 0 (template 'box') is a gpu"}});
}

TEST_CASE("rails on a one-switch fabric are refused", "[topology][bad_config][fabric]") {
  check_bad_input({"fabric_rails_one_tier.yaml", 14, "true", "system.fabric.rail_optimised", {"set tiers: 2"}});
}

TEST_CASE("switches cabled in a loop no GPU reaches are named when the system falls apart",
          "[topology][bad_config][fabric]") {
  // Loops are legal (every fat tree has them; routes are least-cost, so they
  // never circle). What leaves GPUs without a route is the missing cable from
  // the leaves to that loop of spines: the message names both.
  check_bad_input({"switch_loop_no_route.yaml",
                   7,
                   "{kind: gpu",
                   "system.node_templates.box.parts.gpu",
                   {"GPU 'node0.gpu' has no path to any other GPU", "'spine0', 'spine1', 'spine2'",
                    "in a loop among themselves that no GPU reaches"}});
}

TEST_CASE("importing a template from a missing file names the path", "[topology][bad_config][fabric]") {
  check_bad_input({"import_missing.yaml",
                   4,
                   "no_such_system.yaml",
                   "system.node_templates.dgx_h100.import",
                   {"no system file", "no_such_system.yaml", "relative to"}});
}

TEST_CASE("a mesh pairing over two different groups names the link", "[topology][bad_config][mesh]") {
  const std::string text = R"(
system:
  name: half a mesh
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: epyc-9654}
        gpu: {kind: gpu, model: mi300x, count: 4}
      links:
        - {between: ["gpu[0..1]", "gpu[2..3]"], pairing: mesh, kind: xgmi, bandwidth: 64 GB/s}
        - {between: ["gpu[*]", cpu], kind: pcie_gen5_x16}
  nodes: [{template: box, count: 1}]
)";
  const std::string msg = test::config_error_of([&] { test::system_from_text(text, "m.yaml"); });
  CHECK_THAT(msg, Catch::StartsWith("m.yaml:10:"));
  CHECK_THAT(msg, Catch::Contains("system.node_templates.box.links[0]"));
  CHECK_THAT(msg, Catch::Contains("mesh pairing cables every pair of one group's parts"));
}

// GPU variants (parts.<group>.variant): each kind of bad declaration.
TEST_CASE("a power limit on a part without a power model names the fields it takes",
          "[topology][bad_config][variant]") {
  check_bad_input({"variant_power_limit_no_model.yaml",
                   7,
                   "600 W",
                   kParts + ".gpu.variant.power_limit",
                   {"gaudi3 has no power model", "memory_capacity, memory_bandwidth and clock_scale"}});
}

TEST_CASE("a variant field the schema does not know is refused with the valid ones",
          "[topology][bad_config][variant]") {
  check_bad_input({"variant_unknown_field.yaml",
                   7,
                   "hbm_capacity",
                   kParts + ".gpu.variant.hbm_capacity",
                   {"unknown field", "memory_capacity", "power_limit"}});
}

TEST_CASE("a variant of a part that is not a GPU is refused", "[topology][bad_config][variant]") {
  check_bad_input({"variant_not_gpu.yaml", 8, "{name: fast-nic}", kParts + ".nic.variant", {"gpu parts only"}});
}

TEST_CASE("a variant named as a catalogue GPU is refused", "[topology][bad_config][variant]") {
  check_bad_input({"variant_catalogue_name.yaml",
                   7,
                   "h200",
                   kParts + ".gpu.variant.name",
                   {"'h200' is a catalogue GPU already", "a name of its own"}});
}

TEST_CASE("a power limit at or below the idle draw, or in the wrong unit, is refused",
          "[topology][bad_config][variant]") {
  check_bad_input({"variant_below_idle.yaml",
                   7,
                   "50 W",
                   kParts + ".gpu.variant.power_limit",
                   {"must exceed h100-sxm's idle draw (71.75 W)", "got 50 W"}});
  check_bad_input(
      {"variant_power_unit.yaml", 7, "500 GB/s", kParts + ".gpu.variant.power_limit", {"not a power", "W, kW, MW"}});
}

TEST_CASE("one variant name with two sets of figures is refused", "[topology][bad_config][variant]") {
  check_bad_input({"variant_twice.yaml",
                   8,
                   "{name: h100-x, power_limit: 600 W}",
                   kParts + ".spare.variant",
                   {"'h100-x' is declared twice with different figures"}});
}
