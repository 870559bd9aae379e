#pragma once
// Shards of a sweep for clusters without MPI (`simctl sweep --shard I/N
// --out DIR`, then `simctl sweep merge DIR`): each shard file holds the
// study's text, fingerprint and point count besides its rows, so a merge
// needs nothing else and can tell shards of another study or a missing one.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/study/study_file.hpp"
#include "sim/study/sweep_rows.hpp"

namespace simctl {

// DIR/shard-0003-of-0008.json.
std::filesystem::path shard_file(const std::filesystem::path& dir, std::uint64_t shard, std::uint64_t shards);

// Writes the shard (atomically) and returns its path.
std::filesystem::path write_shard(const std::filesystem::path& dir, const Study& study, std::uint64_t shard,
                                  std::uint64_t shards, const std::vector<PointRow>& rows);

struct MergedSweep {
  Study study;
  std::vector<PointRow> rows;  // every point, in point order
};

// Reads every shard-*.json in `dir`; ConfigError when there are none, when
// they come from different studies (or edits of one), or when a point is
// missing (naming the missing shards) or present twice.
MergedSweep merge_shards(const std::filesystem::path& dir);

}  // namespace simctl
