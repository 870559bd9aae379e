#pragma once
// Finding parts by what a user types: a part name ("node0.gpu3", "leaf2")
// or a GPU's global rank ("gpu:3"), with suggestions when nothing matches.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topology/system.hpp"

namespace simctl {

inline constexpr std::string_view kPartReferenceSyntax =
    "a part name such as 'node0.gpu3' or 'leaf2', or a GPU rank such as 'gpu:3'";

// Throws std::invalid_argument saying what was wrong and what is valid:
// a rank out of range names the valid ranks, an unknown name the closest
// part names.
EndpointId resolve_part(const System& system, std::string_view text);

// Up to `limit` part names closest to `text` by edit distance, closest first
// (ties in part order); only names within a few edits.
std::vector<std::string> close_part_names(const System& system, std::string_view text, std::size_t limit);

}  // namespace simctl
