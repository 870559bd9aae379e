#include "models/network/link_kinds.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/config/config_error.hpp"
#include "sim/config/config_schema.hpp"

using namespace simctl;

namespace link_kinds_detail {

struct LoadAttempt {
  std::string path;
  std::string message;  // the ConfigError's, empty when the file loads
};

// Writes `text` to a temporary link kinds file and loads it.
LoadAttempt load_text(const std::string& text) {
  const auto path =
      (std::filesystem::temp_directory_path() / ("simctl_link_kinds_" + std::to_string(::getpid()) + ".yaml")).string();
  std::ofstream(path) << text;
  LoadAttempt attempt{path, ""};
  try {
    LinkKindTable::load(path);
  } catch (const ConfigError& e) {
    attempt.message = e.what();
  }
  std::filesystem::remove(path);
  return attempt;
}

}  // namespace link_kinds_detail

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
  const auto [path, message] = link_kinds_detail::load_text("link_kinds:\n  nvlink9:\n    bandwidth: 1 GB/s\n");
  CHECK_THAT(message, Catch::Contains(path + ":3"));
  CHECK_THAT(message, Catch::Contains("link_kinds.nvlink9"));
  CHECK_THAT(message, Catch::Contains("nvlink4"));  // lists the valid kinds
}

TEST_CASE("InfiniBand kinds route adaptively by default, Ethernet and the rest hash",
          "[network][link_kinds][routing]") {
  const LinkKindTable table = LinkKindTable::load();
  for (LinkKind kind :
       {LinkKind::infiniband_edr, LinkKind::infiniband_hdr, LinkKind::infiniband_ndr, LinkKind::infiniband_xdr}) {
    CHECK(table.defaults(kind).routes_adaptively);
  }
  CHECK_FALSE(table.defaults(LinkKind::ethernet).routes_adaptively);
  CHECK_FALSE(table.defaults(LinkKind::nvlink4).routes_adaptively);
}

TEST_CASE("a link kind's fabric routing must be ecmp or adaptive and name its source", "[network][link_kinds]") {
  const auto refusal = [](const std::string& entry) {
    return link_kinds_detail::load_text("link_kinds:\n  ethernet:\n" + entry).message;
  };
  const std::string figures = "    bandwidth: 100 Gb/s\n    latency: 1 us\n    efficiency: 0.9\n";
  const std::string sources = "    sources: {bandwidth: a, latency: b, efficiency: c";
  CHECK_THAT(refusal(figures + "    fabric_routing: static\n" + sources + ", fabric_routing: d}\n"),
             Catch::Contains("fabric_routing") && Catch::Contains("ecmp") && Catch::Contains("adaptive"));
  CHECK_THAT(refusal(figures + "    fabric_routing: adaptive\n" + sources + "}\n"),
             Catch::Contains("sources.fabric_routing"));
}
