// Chakra execution traces (workloads/chakra/chakra_et.hpp): simctl's
// traces round-trip through per-rank ETs exactly, ASTRA-sim's ETs replay,
// and broken ETs are refused naming the file and the node.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "et_def.pb.h"
#include "plan_run.hpp"
#include "sim/config/data_root.hpp"
#include "workloads/chakra/chakra_et.hpp"
#include "workloads/chakra/chakra_io.hpp"
#include "workloads/trace_json.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace chakra_test_detail {

std::string scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_chakra_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<std::string> astra_sim_all_reduce() {
  std::vector<std::string> paths;
  for (int r = 0; r < 4; ++r)
    paths.push_back(data_root() + "/tests/data/chakra/all_reduce." + std::to_string(r) + ".et");
  return paths;
}

ChakraProtoMsg::Node node(std::uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type) {
  ChakraProtoMsg::Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(type);
  return n;
}

void int_attr(ChakraProtoMsg::Node& n, const std::string& name, std::int64_t value) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

// Two ranks: a compute node listed after the send that depends on it, the
// send/recv pair, and a collective on communicator group "1".
std::vector<std::string> write_two_rank_ets(const std::string& dir, bool with_duration = false) {
  std::vector<std::string> paths;
  ChakraProtoMsg::GlobalMetadata meta;
  meta.set_version("0.0.4");
  for (int r = 0; r < 2; ++r) {
    std::vector<ChakraProtoMsg::Node> nodes;
    auto p2p =
        node(7, r == 0 ? "send" : "recv", r == 0 ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
    int_attr(p2p, "comm_src", 0);
    int_attr(p2p, "comm_dst", 1);
    int_attr(p2p, "comm_size", 1 << 20);
    p2p.add_data_deps(3);
    nodes.push_back(p2p);
    auto gemm = node(3, "gemm", ChakraProtoMsg::COMP_NODE);
    int_attr(gemm, "num_ops", 2LL * 4096 * 4096 * 4096);
    int_attr(gemm, "tensor_size", 3LL * 4096 * 4096 * 2);
    if (with_duration) gemm.set_duration_micros(250);
    nodes.push_back(gemm);
    auto ar = node(9, "all_reduce", ChakraProtoMsg::COMM_COLL_NODE);
    int_attr(ar, "comm_type", ChakraProtoMsg::ALL_REDUCE);
    int_attr(ar, "comm_size", 64 << 20);
    auto* pg = ar.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val("1");
    ar.add_ctrl_deps(7);
    nodes.push_back(ar);
    paths.push_back(dir + "/two." + std::to_string(r) + ".et");
    chakra_detail::write_et_file(paths.back(), meta, nodes);
  }
  return paths;
}

std::string import_error(const std::vector<std::string>& paths, const ChakraImportOptions& options = {}) {
  try {
    import_chakra(paths, options);
  } catch (const ChakraError& e) {
    return e.what();
  }
  return "no error";
}

std::string replay_config(const std::string& dir, const std::string& trace,
                          const std::string& system = "configs/systems/dgx_h100.yaml") {
  const std::string path = dir + "/replay.yaml";
  std::ofstream(path) << "name: chakra replay\nsystem: " << config_path(system) << "\nworkload: {trace: " << trace
                      << "}\n";
  return path;
}

}  // namespace chakra_test_detail

using namespace chakra_test_detail;

TEST_CASE("a config exported as Chakra ETs imports back to the same trace and the same step", "[chakra]") {
  const std::pair<const char*, const char*> cases[] = {
      {"configs/dgx_h100_x8.yaml", "configs/systems/dgx_h100.yaml"},
      {"configs/dgx_h100x4_gpt6p7b_tp8_pp4.yaml", "configs/systems/dgx_h100_x4_ndr.yaml"}};
  for (const auto& [config, system] : cases) {
    INFO(config);
    const Scenario s = load_scenario(config_path(config));
    const std::string dir = scratch_dir("roundtrip");
    const ChakraExport written = export_chakra(s.trace, s.labels.workload, dir, "job");
    REQUIRE(written.et_paths.size() == s.trace.rank_count());
    const ChakraImport back = import_chakra(written.et_paths, {});
    CHECK(back.simctl_written);
    CHECK(trace_to_json(back.trace, back.description) == trace_to_json(s.trace, s.labels.workload));
    write_trace_file(dir + "/back.json", back.trace, back.description);
    CHECK(run_scenario(load_scenario(replay_config(dir, dir + "/back.json", system))).step_s() ==
          Approx(run_scenario(s).step_s()).epsilon(1e-12));
  }
}

TEST_CASE("exported ETs carry Chakra's own fields for ASTRA-sim", "[chakra]") {
  const Scenario s = load_scenario(config_path("configs/dgx_h100x4_gpt6p7b_tp8_pp4.yaml"));
  const std::string dir = scratch_dir("fields");
  const ChakraExport written = export_chakra(s.trace, s.labels.workload, dir, "job");
  const auto file = chakra_detail::read_et_file(written.et_paths[0]);
  std::map<int, int> types;
  for (const auto& n : file.nodes) {
    ++types[n.type()];
    if (n.type() == ChakraProtoMsg::COMP_NODE && !chakra_detail::find_attr(n.attr(), "is_cpu_op")->bool_val())
      REQUIRE(chakra_detail::find_attr(n.attr(), "num_ops"));
    if (n.type() == ChakraProtoMsg::COMM_COLL_NODE) {
      REQUIRE(chakra_detail::find_attr(n.attr(), "comm_size"));
      CHECK(chakra_detail::find_attr(n.attr(), "pg_name")->string_val() != "0");
    }
  }
  CHECK(types[ChakraProtoMsg::COMP_NODE] > 0);
  CHECK(types[ChakraProtoMsg::COMM_COLL_NODE] > 0);
  CHECK(types[ChakraProtoMsg::COMM_SEND_NODE] > 0);  // rank 0 is the first pipeline stage
  std::ifstream groups(written.comm_groups_path);
  std::string text((std::istreambuf_iterator<char>(groups)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::StartsWith("{\"1\":["));
}

TEST_CASE("ASTRA-sim's all-reduce microbenchmark ETs import as one all-reduce over every rank", "[chakra]") {
  const ChakraImport imported = import_chakra(astra_sim_all_reduce(), {});
  CHECK_FALSE(imported.simctl_written);
  REQUIRE(imported.trace.rank_count() == 4);
  REQUIRE(imported.trace.groups.size() == 1);
  CHECK(imported.trace.groups[0] == std::vector<std::uint32_t>{0, 1, 2, 3});
  for (std::uint32_t r = 0; r < 4; ++r) {
    REQUIRE(imported.trace.ops(r).size() == 1);
    const auto& call = std::get<CollectiveCall>(imported.trace.ops(r)[0].work);
    CHECK(call.op == CollectiveOp::all_reduce);
    CHECK(call.bytes == 1048576.0);
  }
  const std::string dir = scratch_dir("astra");
  write_trace_file(dir + "/ar.json", imported.trace, imported.description);
  CHECK(run_scenario(load_scenario(replay_config(dir, dir + "/ar.json"))).step_s() > 0.0);
}

TEST_CASE("a foreign ET's nodes become ops in dependency order, with groups and peers", "[chakra]") {
  const std::string dir = scratch_dir("foreign");
  const auto paths = write_two_rank_ets(dir);
  ChakraImportOptions options;
  options.comm_groups_json = "{\"1\": [0, 1]}";
  options.comm_groups_label = "groups.json";
  const ChakraImport imported = import_chakra(paths, options);
  const auto& ops = imported.trace.ops(0);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].name == "gemm");  // listed second, but the send depends on it
  CHECK(std::get<ComputeWork>(ops[0].work).kind == ComputeKind::gemm);
  CHECK(ops[1].name == "send");
  CHECK(ops[1].deps == std::vector<OpIndex>{0});
  CHECK(std::get<PeerTransfer>(ops[1].work).peer == 1);
  CHECK(std::get<PeerTransfer>(imported.trace.ops(1)[1].work).side == PeerTransfer::Side::receive);
  CHECK(ops[2].deps == std::vector<OpIndex>{1});
  CHECK(imported.trace.groups[0] == std::vector<std::uint32_t>{0, 1});
  // A duration is a measured kernel, on the GPU --gpu names.
  options.measured_on = "h100-sxm";
  const ChakraImport measured = import_chakra(write_two_rank_ets(dir, true), options);
  CHECK(std::get<ComputeWork>(measured.trace.ops(0)[0].work).measured_seconds == Approx(250e-6));
  CHECK(measured.trace.measured_on == "h100-sxm");
}

TEST_CASE("broken or unusable Chakra ETs are refused naming the file and the node", "[chakra][errors]") {
  const std::string dir = scratch_dir("errors");
  SECTION("a file cut short") {
    const std::string path = dir + "/cut.et";
    std::ifstream in(astra_sim_all_reduce()[1], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 10);
    CHECK_THAT(import_error({path}), Catch::Contains("cut.et: byte") && Catch::Contains("cut short"));
  }
  SECTION("not a Chakra ET at all") {
    const std::string path = dir + "/text.et";
    std::ofstream(path) << "{\"traceEvents\": []}";
    CHECK_THAT(import_error({path}), Catch::Contains("text.et") && Catch::Contains("not a Chakra ET"));
  }
  SECTION("a group name without the groups file") {
    CHECK_THAT(import_error(write_two_rank_ets(dir)),
               Catch::Contains("two.0.et: node 9 ('all_reduce')") && Catch::Contains("--comm-groups"));
  }
  SECTION("a communicator-group file whose members are not ranks") {
    ChakraImportOptions options;
    options.comm_groups_json = "{\"1\": [\"a\", \"b\"]}";
    options.comm_groups_label = "groups.json";
    CHECK_THAT(import_error(write_two_rank_ets(dir), options), Catch::Contains("Chakra ETs"));
  }
  SECTION("a duration without the GPU it was measured on") {
    ChakraImportOptions options;
    options.comm_groups_json = "{\"1\": [0, 1]}";
    CHECK_THAT(import_error(write_two_rank_ets(dir, true), options),
               Catch::Contains("node 3 ('gemm')") && Catch::Contains("--gpu"));
  }
  SECTION("a dependency on a node the file does not hold, and a cycle") {
    ChakraProtoMsg::GlobalMetadata meta;
    auto a = node(1, "a", ChakraProtoMsg::COMP_NODE);
    int_attr(a, "num_ops", 1000);
    a.add_ctrl_deps(42);
    chakra_detail::write_et_file(dir + "/missing.et", meta, {a});
    CHECK_THAT(import_error({dir + "/missing.et"}), Catch::Contains("node 1 ('a'): depends on node 42"));
    a.clear_ctrl_deps();
    auto b = node(2, "b", ChakraProtoMsg::COMP_NODE);
    int_attr(b, "num_ops", 1000);
    a.add_ctrl_deps(2);
    b.add_data_deps(1);
    chakra_detail::write_et_file(dir + "/cycle.et", meta, {a, b});
    CHECK_THAT(import_error({dir + "/cycle.et"}), Catch::Contains("cycle"));
  }
  SECTION("a collective simctl does not model") {
    ChakraProtoMsg::GlobalMetadata meta;
    auto barrier = node(0, "barrier", ChakraProtoMsg::COMM_COLL_NODE);
    int_attr(barrier, "comm_type", ChakraProtoMsg::BARRIER);
    int_attr(barrier, "comm_size", 0);
    chakra_detail::write_et_file(dir + "/barrier.et", meta, {barrier});
    CHECK_THAT(import_error({dir + "/barrier.et"}), Catch::Contains("comm_type 9 is not modelled"));
  }
  SECTION("simctl's ETs given out of rank order") {
    const Scenario s = load_scenario(config_path("configs/dgx_h100_x8.yaml"));
    const ChakraExport written = export_chakra(s.trace, s.labels.workload, dir, "job");
    auto swapped = written.et_paths;
    std::swap(swapped[0], swapped[1]);
    CHECK_THAT(import_error(swapped),
               Catch::Contains("job.1.et: holds rank 1 of 8") && Catch::Contains("in rank order"));
    CHECK_THAT(import_error({written.et_paths[0]}), Catch::Contains("holds rank 0 of 8"));
  }
}
