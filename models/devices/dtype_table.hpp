#pragma once
// A value per numeric format, with "absent" distinct from zero: a part that
// has no fp8 tensor cores must say so rather than report 0 FLOP/s silently.
#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "sim/core/dtype.hpp"

namespace simctl {

template <typename T>
class DTypeTable {
 public:
  void set(DType d, T value) { values_[index(d)] = value; }
  bool has(DType d) const { return values_[index(d)].has_value(); }
  const std::optional<T>& find(DType d) const { return values_[index(d)]; }

  // "fp32, bf16 and fp16": the formats present, for error messages.
  std::string listed() const {
    std::string out;
    for (DType d : kAllDTypes) {
      if (!has(d)) continue;
      if (!out.empty()) out += ", ";
      out += std::string(to_string(d));
    }
    return out.empty() ? "none" : out;
  }

 private:
  static std::size_t index(DType d) { return static_cast<std::size_t>(d); }
  std::array<std::optional<T>, std::size(kAllDTypes)> values_{};
};

}  // namespace simctl
