#pragma once
// A node template may live in another system file and be imported, so that a
// 128-node cluster does not copy the DGX it is made of:
//
//   node_templates:
//     dgx_h100: {import: dgx_h100.yaml}                    # that file's node_templates.dgx_h100
//     a100: {import: dgx_a100.yaml, template: dgx_a100}    # a template of another name
//
// The path is relative to the importing file. Errors inside the imported
// template point into the file it is written in.
#include <string>

#include "sim/config/config_node.hpp"

namespace simctl {

// The template's own mapping: `node` itself, or the one it imports.
ConfigNode resolve_template(const std::string& name, const ConfigNode& node);

}  // namespace simctl
