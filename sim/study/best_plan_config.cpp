#include "sim/study/best_plan_config.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace simctl {
namespace {

namespace fs = std::filesystem;

// `path` as the base config (in `from`) wrote it, as the new file (in `to`)
// must write it.
std::string rebased(const std::string& path, const fs::path& from, const fs::path& to) {
  const fs::path target = fs::absolute(from / path).lexically_normal();
  const fs::path relative = target.lexically_relative(to);
  return relative.empty() ? target.string() : relative.string();
}

// Every `import:` below `node` (node templates of an inline system).
void rebase_imports(YAML::Node node, const fs::path& from, const fs::path& to) {
  if (node.IsSequence()) {
    for (YAML::Node child : node) rebase_imports(child, from, to);
    return;
  }
  if (!node.IsMap()) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it->first.as<std::string>() == "import" && it->second.IsScalar()) {
      it->second = rebased(it->second.as<std::string>(), from, to);
    } else {
      rebase_imports(it->second, from, to);
    }
  }
}

}  // namespace

std::string best_plan_config_text(const std::string& config_path, const Plan& plan, const std::string& output_path) {
  const fs::path from = fs::absolute(config_path).parent_path().lexically_normal();
  const fs::path to = fs::absolute(output_path).parent_path().lexically_normal();
  YAML::Node root = YAML::LoadFile(config_path);
  const bool workload_file = root["workload"].IsScalar();
  YAML::Node workload = workload_file ? YAML::LoadFile((from / root["workload"].as<std::string>()).string())["workload"]
                                      : root["workload"];
  const SourceLocation origin{"search plan", 0, 0};
  apply_overrides(workload, "workload", plan_overrides(plan, origin));
  root["workload"] = workload;
  if (root["system"].IsScalar()) {
    root["system"] = rebased(root["system"].as<std::string>(), from, to);
  } else {
    rebase_imports(root["system"], from, to);
  }
  // The base's name describes the base's plan ("Megatron TP8 + SP +
  // selective recompute"), so it moves to a comment; the name says what the
  // file holds.
  const std::string base_name = root["name"] ? root["name"].as<std::string>() : "";
  if (root["description"]) root.remove("description");  // the base plan's prose, as its name
  root["name"] =
      "simctl search's best plan: " + plan_text(plan) + ", searched from " + fs::path(config_path).filename().string();
  YAML::Emitter out;
  out << root;
  return "# Written by `simctl search " + config_path + "`: the fastest plan it found,\n# " + plan_text(plan) + ".\n" +
         (base_name.empty() ? "" : "# The base config's name was: " + base_name + "\n") + out.c_str() + "\n";
}

void write_best_plan_config(const std::string& config_path, const Plan& plan, const std::string& output_path) {
  const std::string text = best_plan_config_text(config_path, plan, output_path);
  std::ofstream file(output_path);
  if (!file) throw std::runtime_error("cannot write the best plan's config to '" + output_path + "'");
  file << text;
}

}  // namespace simctl
