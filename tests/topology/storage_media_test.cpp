// A disk is slower than its port: the cable to it carries at most the
// disk's catalogue read rate and adds its access latency, so a hard disk on
// a fast PCIe port still reads at hard-disk speed.
#include <catch2/catch.hpp>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

System box_with(const std::string& disk_model, const std::string& port = "kind: pcie_gen4_x16") {
  return test::system_from_text(R"(system:
  name: one socket and a disk
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
        dram: {kind: dram, model: ddr5-4800, capacity: 256 GiB}
        gpu: {kind: gpu, model: h100-sxm}
        disk: {kind: storage, model: )" +
                                disk_model + R"(}
      links:
        - {between: [gpu, cpu], kind: pcie_gen5_x16}
        - {between: [cpu, dram], kind: memory_bus}
        - {between: [disk, cpu], )" +
                                port + R"(}
  nodes:
    - {template: box, count: 1}
)");
}

double read_rate_bytes_per_s(const System& system) {
  const Path& path = system.route(*system.find("node0.disk"), *system.find("node0.dram"));
  const LinkId first = path.links.front();
  return system.link_capacities()[first].bytes_per_s;
}

}  // namespace

TEST_CASE("a hard disk on a PCIe Gen4 x16 port reads at its own 270 MB/s", "[topology][storage]") {
  const System hdd = box_with("hdd-sata-exos-x18");
  const StorageSpec& spec = test::catalogue().storage("hdd-sata-exos-x18");
  CHECK(read_rate_bytes_per_s(hdd) == Approx(spec.read_bandwidth.bytes_per_s));
  const Path& path = hdd.route(*hdd.find("node0.disk"), *hdd.find("node0.dram"));
  CHECK(path.latency >= spec.read_latency);
}

TEST_CASE("a fast NVMe drive is limited by its port, not capped below it", "[topology][storage]") {
  // 13 GB/s of media behind an x4 Gen4 port (8 GB/s raw): the port's
  // effective rate wins.
  const System nvme = box_with("nvme-gen5-samsung-pm1743", "kind: pcie_gen4_x16, bandwidth: 8 GB/s");
  const double efficiency = test::link_kinds().defaults(LinkKind::pcie_gen4_x16).efficiency;
  CHECK(read_rate_bytes_per_s(nvme) == Approx(8e9 * efficiency));
  // On a full x16 port the drive's own 13 GB/s is the limit.
  CHECK(read_rate_bytes_per_s(box_with("nvme-gen5-samsung-pm1743")) == Approx(13e9));
}
