#include "models/network/link_kinds.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/config/config_error.hpp"
#include "sim/config/config_schema.hpp"

using namespace simctl;

TEST_CASE("every link kind round-trips through its name", "[network][link_kinds]") {
  for (LinkKind kind : kAllLinkKinds) CHECK(link_kind_from_string(to_string(kind)) == kind);
  CHECK_FALSE(link_kind_from_string("nvlink9").has_value());
}

// The schema's list is what docs/config.md prints and what a user reads: it
// had left out upi and xgmi, which systems can be cabled with.
TEST_CASE("the config schema lists every link kind a link may name, and no other", "[network][link_kinds]") {
  std::vector<std::string> names;
  for (LinkKind kind : kAllLinkKinds) names.emplace_back(to_string(kind));
  const SchemaSection& links = config_schema().section("links[]");
  const auto kind =
      std::find_if(links.fields.begin(), links.fields.end(), [](const SchemaField& f) { return f.name == "kind"; });
  REQUIRE(kind != links.fields.end());
  CHECK(kind->choices == names);
}

TEST_CASE("the shipped table has every kind with sane figures", "[network][link_kinds]") {
  const LinkKindTable table = LinkKindTable::load();
  for (LinkKind kind : kAllLinkKinds) {
    const LinkSpec& spec = table.defaults(kind);
    CHECK(spec.kind == kind);
    CHECK(spec.bandwidth.bytes_per_s > 0.0);
    CHECK(spec.efficiency > 0.5);
    CHECK(spec.efficiency <= 1.0);
    CHECK(spec.effective().bytes_per_s < spec.bandwidth.bytes_per_s * 1.0000001);
  }
}

TEST_CASE("NVLink4 effective rate is the measured P2P copy rate", "[network][link_kinds]") {
  // B-H200-NVLink4-P2P-unidir: nvbandwidth CE write 396.4 GB/s of 450 GB/s.
  const LinkKindTable table = LinkKindTable::load();
  const LinkSpec& nvl = table.defaults(LinkKind::nvlink4);
  CHECK(nvl.bandwidth.gb_per_s() == Approx(450.0));
  CHECK(nvl.effective().gb_per_s() == Approx(396.4).epsilon(0.002));
}

TEST_CASE("PCIe never reaches its raw rate", "[network][link_kinds]") {
  const LinkKindTable table = LinkKindTable::load();
  // B-H100-PCIe5-H2D-D2H: 51-52 GB/s; B-RTX4090-PCIe4-H2D-CE: 26.3 GB/s.
  CHECK(table.defaults(LinkKind::pcie_gen5_x16).effective().gb_per_s() == Approx(51.5).epsilon(0.01));
  CHECK(table.defaults(LinkKind::pcie_gen4_x16).effective().gb_per_s() == Approx(26.3).epsilon(0.01));
}

TEST_CASE("a malformed link kinds file is refused with its location", "[network][link_kinds]") {
  const auto path =
      (std::filesystem::temp_directory_path() / ("simctl_bad_link_kinds_" + std::to_string(::getpid()) + ".yaml"))
          .string();
  std::ofstream(path) << "link_kinds:\n  nvlink9:\n    bandwidth: 1 GB/s\n";
  std::string message;
  try {
    LinkKindTable::load(path);
  } catch (const ConfigError& e) {
    message = e.what();
  }
  std::filesystem::remove(path);
  CHECK_THAT(message, Catch::Contains(path + ":3"));
  CHECK_THAT(message, Catch::Contains("link_kinds.nvlink9"));
  CHECK_THAT(message, Catch::Contains("nvlink4"));  // lists the valid kinds
}
