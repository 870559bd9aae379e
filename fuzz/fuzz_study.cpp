// A study file (`simctl sweep STUDY`), written where the shipped studies sit
// relative to their base configs: parsed with its base checked, its point
// count checked as the sweep checks it, and each of its first points'
// overrides written into the base config's tree as the sweep writes them.
#include <yaml-cpp/yaml.h>

#include "fuzz/fuzz_common.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/config_overrides.hpp"
#include "sim/study/study_file.hpp"
#include "sim/study/study_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simctl;
  const std::string path = fuzz::write_scratch("studies/study.yaml", data, size);
  return fuzz::expect_only_config_errors([&] {
    const Study study = load_study(path);
    check_point_count(study, false);
    const std::uint64_t points = point_count(study);
    for (std::uint64_t p = 0; p < points && p < 4; ++p) {
      const ConfigOverrides overrides = point_overrides(study, p);
      const ConfigNode base = ConfigNode::load_file(study.base_path);
      apply_overrides(YAML::Clone(base.yaml()), "", overrides);
    }
  });
}
