#include "sim/study/sweep_shards.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/study/study_points.hpp"
#include "sim/study/sweep_outputs.hpp"

namespace simctl {
namespace {

constexpr const char* kFormat = "simctl-sweep-shard";
constexpr int kVersion = 1;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
  throw ConfigError(SourceLocation{file.string(), 0, 0}, "", problem);
}

nlohmann::json read_shard(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded() || !json.is_object() || json.value("format", "") != kFormat ||
      json.value("version", 0) != kVersion) {
    fail(file, std::string("not a sweep shard (") + kFormat + " version " + std::to_string(kVersion) +
                   ", as simctl sweep --shard I/N --out DIR writes)");
  }
  return json;
}

}  // namespace

std::filesystem::path shard_file(const std::filesystem::path& dir, std::uint64_t shard, std::uint64_t shards) {
  char name[64];
  std::snprintf(name, sizeof name, "shard-%04llu-of-%04llu.json", static_cast<unsigned long long>(shard),
                static_cast<unsigned long long>(shards));
  return dir / name;
}

std::filesystem::path write_shard(const std::filesystem::path& dir, const Study& study, std::uint64_t shard,
                                  std::uint64_t shards, const std::vector<PointRow>& rows) {
  nlohmann::json json{{"format", kFormat},        {"version", kVersion},
                      {"study_file", study.file}, {"study_fingerprint", study_fingerprint(study)},
                      {"study_text", study.text}, {"point_count", point_count(study)},
                      {"shard", shard},           {"shards", shards}};
  json["rows"] = nlohmann::json::array();
  for (const PointRow& row : rows) json["rows"].push_back(row_to_json(row));
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = shard_file(dir, shard, shards);
  write_files_atomically({{file, json.dump() + "\n"}});
  return file;
}

MergedSweep merge_shards(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("shard-", 0) == 0 && entry.path().extension() == ".json") files.push_back(entry.path());
    }
  }
  if (files.empty()) fail(dir, "no shard-*.json files here; write them with simctl sweep STUDY --shard I/N --out DIR");
  std::sort(files.begin(), files.end());
  const nlohmann::json first = read_shard(files.front());
  const std::string fingerprint = first.at("study_fingerprint").get<std::string>();
  const std::uint64_t count = first.at("point_count").get<std::uint64_t>();
  const std::uint64_t shards = first.at("shards").get<std::uint64_t>();
  MergedSweep merged{
      parse_study(first.at("study_text").get<std::string>(), first.at("study_file").get<std::string>(), false), {}};
  std::vector<std::optional<PointRow>> rows(count);
  for (const auto& file : files) {
    const nlohmann::json shard = file == files.front() ? first : read_shard(file);
    if (shard.at("study_fingerprint") != fingerprint || shard.at("point_count").get<std::uint64_t>() != count) {
      fail(file, "this shard comes from another study (or another version of it) than " +
                     files.front().filename().string() + "; merge shards of one study only");
    }
    if (shard.at("shards").get<std::uint64_t>() != shards) {
      fail(file, "this shard is one of " + shard.at("shards").dump() + ", " + files.front().filename().string() +
                     " one of " + std::to_string(shards) + "; merge shards of one run only");
    }
    for (const nlohmann::json& json : shard.at("rows")) {
      PointRow row = row_from_json(json);
      if (row.point >= count) fail(file, "point " + std::to_string(row.point) + " is beyond the study's points");
      if (rows[row.point]) fail(file, "point " + std::to_string(row.point) + " is in two shards");
      rows[row.point] = std::move(row);
    }
  }
  std::set<std::uint64_t> missing_shards;
  for (std::uint64_t p = 0; p < count; ++p) {
    if (!rows[p]) missing_shards.insert(p % shards + 1);
  }
  if (!missing_shards.empty()) {
    std::string names;
    for (std::uint64_t s : missing_shards) names += (names.empty() ? "" : ", ") + std::to_string(s);
    fail(dir, "points are missing: shard(s) " + names + " of " + std::to_string(shards) +
                  " not here; run them with --shard I/" + std::to_string(shards) + " --out " + dir.string());
  }
  for (auto& row : rows) merged.rows.push_back(std::move(*row));
  return merged;
}

}  // namespace simctl
