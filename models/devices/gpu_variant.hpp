#pragma once
// A GPU variant: a catalogue part with some of its figures changed, declared
// in a system file rather than the catalogue (Meta's H100 with 96 GB HBM2e
// at 500 W, an MI350X as an MI355X at 1000 W). The derived part is priced by
// the same models as its base: a lower power limit lowers the sustained
// tensor clock through the base's power model (power_model.hpp).
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/devices/device_specs.hpp"

namespace simctl {

struct GpuVariant {
  std::string id;  // the variant's own name, which parts then carry as their model
  std::optional<Bytes> memory_capacity;
  std::optional<Bandwidth> memory_bandwidth;
  std::optional<double> power_limit_watts;  // board limit; replaces the TDP, sets the sustained clock
  std::optional<double> clock_scale;        // burst clock / the base's: scales every peak rate
  std::string declared_at;                  // "file:line:col", for the derived part's source
};

// A variant field its base part cannot take, with the field's name so the
// system parser can point at it.
class GpuVariantError : public std::invalid_argument {
 public:
  GpuVariantError(std::string field, const std::string& what) : std::invalid_argument(what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The base part with the variant's figures; its sources say what changed
// ("variant of h100-sxm: memory_capacity 96 GB, power_limit 500 W"). Throws
// GpuVariantError when the base cannot take a field: a power limit on a part
// without a power model, or one at or below its idle draw.
GpuSpec derive_gpu_variant(const GpuSpec& base, const GpuVariant& variant);

}  // namespace simctl
