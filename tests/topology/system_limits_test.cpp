// Systems too large to build, and import chains too long or circular, are
// refused before anything is built, naming the size and the limit.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

std::string node_with(const std::string& parts, int nodes) {
  return "system:\n"
         "  name: big\n"
         "  node_templates:\n"
         "    box:\n"
         "      parts:\n" +
         parts +
         "      links:\n"
         "        - {between: [\"gpu[*]\", sw], kind: nvlink4}\n"
         "  nodes:\n"
         "    - {template: box, count: " +
         std::to_string(nodes) + "}\n";
}

// A folder of system files, each importing template `box` from the next;
// the last defines it. Returns the first file's path.
std::string import_chain(const std::string& name, int length, bool cyclic) {
  const auto dir = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (int i = 0; i < length; ++i) {
    std::ofstream out(dir / ("s" + std::to_string(i) + ".yaml"));
    out << "system:\n  name: s" << i << "\n  node_templates:\n";
    if (i + 1 < length || cyclic) {
      out << "    box: {import: s" << (i + 1 < length ? i + 1 : 0) << ".yaml}\n";
    } else {
      out << "    box:\n      parts: {gpu: {kind: gpu, model: h100-sxm, count: 2}, sw: {kind: nvswitch},\n"
          << "              cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}}\n"
          << "      links: [{between: [\"gpu[*]\", sw], kind: nvlink4}, {between: [\"gpu[*]\", cpu], kind: "
             "pcie_gen5_x16}]\n";
    }
    out << "  nodes: [{template: box}]\n";
  }
  return (dir / "s0.yaml").string();
}

}  // namespace

TEST_CASE("a million GPUs are refused before a part is built", "[topology][limits]") {
  const std::string one_node =
      node_with("        gpu: {kind: gpu, model: h100-sxm, count: 1000000}\n        sw: {kind: nvswitch}\n", 1);
  const std::string msg = test::config_error_of([&] { test::system_from_text(one_node, "big.yaml"); });
  CHECK_THAT(msg, Catch::StartsWith("big.yaml:") && Catch::Contains("system.nodes[0]") &&
                      Catch::Contains("1000000 GPUs, more than the 131072 simctl builds"));
  const std::string many_nodes =
      node_with("        gpu: {kind: gpu, model: h100-sxm, count: 10}\n        sw: {kind: nvswitch}\n", 100000);
  CHECK_THAT(test::config_error_of([&] { test::system_from_text(many_nodes, "big.yaml"); }),
             Catch::Contains("system.nodes[0].count") && Catch::Contains("1000000 GPUs, more than the 131072"));
  const std::string many_parts = node_with(
      "        gpu: {kind: gpu, model: h100-sxm, count: 1}\n        sw: {kind: nvswitch}\n"
      "        pcie: {kind: pcie_switch, count: 30}\n",
      40000);
  CHECK_THAT(test::config_error_of([&] { test::system_from_text(many_parts, "big.yaml"); }),
             Catch::Contains("1280000 parts, more than the 1000000 simctl builds"));
}

TEST_CASE("an all_to_all link of over a million cables is refused", "[topology][limits]") {
  const std::string mesh =
      "system:\n  name: mesh\n  node_templates:\n    box:\n      parts:\n"
      "        gpu: {kind: gpu, model: h100-sxm, count: 1100}\n        sw: {kind: pcie_switch, count: 1000}\n"
      "      links:\n        - {between: [\"gpu[*]\", \"sw[*]\"], kind: pcie_gen5_x16, pairing: all_to_all}\n"
      "  nodes: [{template: box}]\n";
  CHECK_THAT(test::config_error_of([&] { test::system_from_text(mesh, "mesh.yaml"); }),
             Catch::StartsWith("mesh.yaml:9:") && Catch::Contains("1100000 cables, more than the 1000000"));
}

// Ten thousand templates in one file, t<i> importing t<i+1> from the same
// file (one file to write, not ten thousand).
TEST_CASE("a ten-thousand-level import chain stops at the depth limit", "[topology][limits]") {
  const auto path =
      std::filesystem::temp_directory_path() / ("simctl_import_chain_10000_" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(path);
    out << "system:\n  name: chain\n  node_templates:\n";
    for (int i = 0; i < 10000; ++i) {
      out << "    t" << i << ": {import: " << path.filename().string() << ", template: t" << i + 1 << "}\n";
    }
    out << "  nodes: [{template: t0}]\n";
  }
  const std::string msg = test::config_error_of([&] { test::system_from_file(path.string()); });
  CHECK_THAT(msg, Catch::StartsWith(path.string() + ":") && Catch::Contains("more than 8 levels deep") &&
                      Catch::Contains("(t0) -> ") && Catch::Contains("(t8) -> ..."));
  // A chain within the limit still loads.
  CHECK(test::system_from_file(import_chain("simctl_import_chain_short", 4, false)).gpus().size() == 2);
}

TEST_CASE("a cyclic import is named as a cycle with its links", "[topology][limits]") {
  const std::string first = import_chain("simctl_import_cycle", 3, true);
  const std::string msg = test::config_error_of([&] { test::system_from_file(first); });
  CHECK_THAT(msg, Catch::Contains("templates import each other in a cycle") && Catch::Contains("s0.yaml (box) -> ") &&
                      Catch::Contains("s2.yaml (box) -> ") && Catch::EndsWith("s0.yaml (box)"));
}
