#pragma once
// Running a study's points and the rows they give. Points run on `jobs`
// threads, each taking the next point from a shared counter; a row lands at
// its point's place, so the rows are the same whatever the number of
// threads, processes (shards) or MPI ranks that ran them.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "sim/study/point_outcome.hpp"
#include "sim/study/study_file.hpp"

namespace simctl {

struct PointRow {
  std::uint64_t point = 0;
  PointOutcome outcome;
};

// Called after each point with the points done so far and the total, from
// the worker threads (one call at a time).
using PointsProgress = std::function<void(std::size_t done, std::size_t total)>;

// Runs the points `indices` of `study` on `jobs` threads (at least 1) and
// returns their rows in the order of `indices`. An exception other than a
// point's own ConfigError stops the run and is rethrown here.
std::vector<PointRow> run_points(const Study& study, const std::vector<std::uint64_t>& indices, int jobs,
                                 const PointsProgress& progress = {});

// The points a shard runs: index % shards == shard - 1 (shard is 1-based).
std::vector<std::uint64_t> shard_points(std::uint64_t point_count, std::uint64_t shard, std::uint64_t shards);

// A row as JSON with every figure at full precision, and back: how shards
// (and MPI ranks) hand rows to the process that writes the outputs. The
// round trip is exact.
nlohmann::json row_to_json(const PointRow& row);
PointRow row_from_json(const nlohmann::json& json);

}  // namespace simctl
