#pragma once
// Max-min fair rates by progressive filling (water-filling): repeatedly find
// the link whose remaining capacity split among its still-unfixed flows is the
// smallest, fix those flows at that share, and remove their rate everywhere.
// A pure function so that it can be tested apart from the event loop.
#include <vector>

#include "models/network/path.hpp"

namespace simctl {

// `flow_links[f]` lists the directed links flow f crosses (non-empty);
// `capacity_bytes_per_s[l]` is indexed by LinkId. Returns one rate per flow,
// in bytes per second. Ties are broken by lowest link id, so results are
// deterministic.
std::vector<double> max_min_fair_rates(const std::vector<const std::vector<LinkId>*>& flow_links,
                                       const std::vector<double>& capacity_bytes_per_s);

}  // namespace simctl
