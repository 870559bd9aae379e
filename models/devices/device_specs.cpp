#include "models/devices/device_specs.hpp"

#include <stdexcept>

namespace simctl {

FlopRate GpuSpec::peak(DType d) const {
  if (const auto& rate = peak_rate.find(d)) return *rate;
  throw std::invalid_argument(name + " (" + id + ") has no " + std::string(to_string(d)) +
                              " compute rate; it supports " + peak_rate.listed());
}

const CacheLevel* CpuSpec::level(std::string_view name) const {
  for (const CacheLevel& l : hierarchy) {
    if (l.level == name) return &l;
  }
  return nullptr;
}

}  // namespace simctl
