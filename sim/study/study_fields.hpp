#pragma once
// Whether a study axis names a config field, and whether its values have
// that field's unit, judged from the config schema (config_schema.yaml), the
// same data the loaders validate with. A path's parent must be a schema
// section and its last name one of that section's fields.
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/config_schema.hpp"

namespace simctl {

// `field` is the axis's `field:` node (its text a path such as
// "system.nodes[0].count"); `values` its values. ConfigError at the field
// (listing the section's valid fields) or at the first bad value.
void check_axis_field(const ConfigNode& field, const std::vector<ConfigNode>& values,
                      const ConfigSchema& schema = config_schema());

}  // namespace simctl
