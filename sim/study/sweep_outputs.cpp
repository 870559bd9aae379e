#include "sim/study/sweep_outputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "sim/study/study_points.hpp"
#include "sim/study/sweep_plots.hpp"

namespace simctl {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;

// Six significant digits: stable across platforms and enough to compare points.
std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

double rounded(double value) { return std::strtod(fixed(value).c_str(), nullptr); }

nlohmann::ordered_json text_or_null(bool present, const std::string& text) {
  return present ? nlohmann::ordered_json(text) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json number_or_null(bool present, double value) {
  return present ? nlohmann::ordered_json(rounded(value)) : nlohmann::ordered_json(nullptr);
}

// The figures of a row, by output column, with whether each is known.
struct RowFigures {
  bool ran, memory;
  const PointMetrics& m;
  explicit RowFigures(const PointOutcome& o)
      : ran(o.status == PointStatus::ok), memory(o.status != PointStatus::invalid), m(o.metrics) {}
  bool tokens() const { return ran && m.tokens_per_s.has_value(); }
  bool cost_per_mtok() const { return ran && m.cost_per_million_tokens.has_value(); }
  bool owned_per_mtok() const { return ran && m.owned_cost_per_million_tokens.has_value(); }
  bool energy_per_mtok() const { return ran && m.energy_per_million_tokens_j.has_value(); }
  double energy_per_mtok_kwh() const { return m.energy_per_million_tokens_j.value_or(0.0) / kJoulesPerKwh; }
};

std::vector<std::string> axis_texts(const Study& study, std::uint64_t point) {
  const std::vector<std::size_t> indices = point_value_indices(study, point);
  const auto axes = study.axes();
  std::vector<std::string> texts;
  for (std::size_t a = 0; a < axes.size(); ++a) texts.push_back(axes[a]->values[indices[a]].text);
  return texts;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_number(bool present, double value) { return present ? fixed(value) : std::string(); }

// The objective's value of a ran row, smaller is better; none when the
// row lacks it (no tokens, say), which sorts after every value.
std::optional<double> objective_key(StudyObjective objective, const PointMetrics& m) {
  switch (objective) {
    case StudyObjective::throughput: return -m.samples_per_s;
    case StudyObjective::step_time: return m.step_time_ms;
    case StudyObjective::mfu: return -m.mfu;
    case StudyObjective::cost_per_million_tokens: return m.cost_per_million_tokens;
    case StudyObjective::owned_cost_per_million_tokens: return m.owned_cost_per_million_tokens;
    case StudyObjective::energy_per_million_tokens: return m.energy_per_million_tokens_j;
  }
  return std::nullopt;
}

std::string format(const char* pattern, double value) {
  char text[48];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// Columns padded to their widest cell; numbers right-aligned.
std::string layout(const std::vector<std::vector<std::string>>& cells, std::size_t text_columns_from) {
  std::vector<std::size_t> width(cells.front().size(), 0);
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      const bool left = c >= text_columns_from || c == 0;
      line += (c ? "  " : "") + (left ? row[c] + (c + 1 < row.size() ? pad : "") : pad + row[c]);
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

nlohmann::ordered_json sweep_json(const Study& study, const std::vector<PointRow>& rows) {
  nlohmann::ordered_json doc;
  doc["study"] = study.title;
  doc["description"] = text_or_null(!study.description.empty(), study.description);
  doc["base"] = study.base;
  doc["objective"] = to_string(study.objective);
  doc["point_count"] = rows.size();
  doc["axes"] = nlohmann::ordered_json::array();
  for (const StudyAxis* axis : study.axes()) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const AxisValue& v : axis->values) values.push_back(v.text);
    doc["axes"].push_back({{"field", axis->field}, {"values", values}});
  }
  const auto axes = study.axes();
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const PointRow& row : rows) {
    const RowFigures f(row.outcome);
    const PointMetrics& m = row.outcome.metrics;
    nlohmann::ordered_json p;
    p["point"] = row.point;
    const std::vector<std::string> texts = axis_texts(study, row.point);
    for (std::size_t a = 0; a < axes.size(); ++a) p["axes"][axes[a]->field] = texts[a];
    p["status"] = to_string(row.outcome.status);
    p["reason"] = text_or_null(!row.outcome.reason.empty(), row.outcome.reason);
    p["gpus"] = f.memory && m.gpus ? nlohmann::ordered_json(m.gpus) : nlohmann::ordered_json(nullptr);
    p["nodes"] = f.ran ? nlohmann::ordered_json(m.nodes) : nlohmann::ordered_json(nullptr);
    p["step_time_ms"] = number_or_null(f.ran, m.step_time_ms);
    p["samples_per_s"] = number_or_null(f.ran, m.samples_per_s);
    p["tokens_per_s"] = number_or_null(f.tokens(), m.tokens_per_s.value_or(0.0));
    p["mfu_percent"] = number_or_null(f.ran, 100.0 * m.mfu);
    p["model_tflops_per_gpu"] = number_or_null(f.ran, m.model_tflops_per_gpu);
    p["peak_memory_gib"] = number_or_null(f.memory, m.peak_memory_gib);
    p["min_headroom_gib"] = number_or_null(f.memory, m.min_headroom_gib);
    p["bottleneck"] = text_or_null(f.ran, m.bottleneck);
    p["currency"] = text_or_null(f.ran, m.currency);
    p["cost_per_step"] = number_or_null(f.ran && m.pricing_source != "none", m.cost_per_step);
    p["cost_per_million_tokens"] = number_or_null(f.cost_per_mtok(), m.cost_per_million_tokens.value_or(0.0));
    p["owned_cost_per_million_tokens"] =
        number_or_null(f.owned_per_mtok(), m.owned_cost_per_million_tokens.value_or(0.0));
    p["energy_per_step_kj"] = number_or_null(f.ran && m.power_source != "none", m.energy_per_step_j / 1e3);
    p["energy_per_million_tokens_kwh"] = number_or_null(f.energy_per_mtok(), f.energy_per_mtok_kwh());
    p["average_power_kw"] = number_or_null(f.ran && m.power_source != "none", m.average_power_w / 1e3);
    p["pricing_source"] = text_or_null(f.ran, m.pricing_source);
    p["power_source"] = text_or_null(f.ran, m.power_source);
    nlohmann::ordered_json breakdown = nullptr;
    if (f.ran) {
      for (Category c : kAllCategories) {
        breakdown[std::string(to_string(c))] = rounded(m.breakdown_ms[static_cast<std::size_t>(c)]);
      }
    }
    p["breakdown_ms"] = breakdown;
    points.push_back(std::move(p));
  }
  doc["points"] = std::move(points);
  return doc;
}

std::string sweep_csv(const Study& study, const std::vector<PointRow>& rows) {
  std::string out = "point";
  for (const StudyAxis* axis : study.axes()) out += "," + csv_field(axis->field);
  out += ",status,reason,gpus,nodes,step_time_ms,samples_per_s,tokens_per_s,mfu_percent,model_tflops_per_gpu";
  for (Category c : kAllCategories) out += "," + std::string(to_string(c)) + "_ms";
  out +=
      ",peak_memory_gib,min_headroom_gib,bottleneck,currency,cost_per_step,cost_per_million_tokens,"
      "owned_cost_per_million_tokens,energy_per_step_kj,energy_per_million_tokens_kwh,average_power_kw,pricing_source,"
      "power_source\n";
  for (const PointRow& row : rows) {
    const RowFigures f(row.outcome);
    const PointMetrics& m = row.outcome.metrics;
    std::string line = std::to_string(row.point);
    for (const std::string& text : axis_texts(study, row.point)) line += "," + csv_field(text);
    line += "," + std::string(to_string(row.outcome.status)) + "," + csv_field(row.outcome.reason);
    line += "," + (f.memory && m.gpus ? std::to_string(m.gpus) : std::string()) + "," +
            (f.ran ? std::to_string(m.nodes) : std::string());
    line += "," + csv_number(f.ran, m.step_time_ms) + "," + csv_number(f.ran, m.samples_per_s) + "," +
            csv_number(f.tokens(), m.tokens_per_s.value_or(0.0)) + "," + csv_number(f.ran, 100.0 * m.mfu) + "," +
            csv_number(f.ran, m.model_tflops_per_gpu);
    for (double ms : m.breakdown_ms) line += "," + csv_number(f.ran, ms);
    const bool priced = f.ran && m.pricing_source != "none", powered = f.ran && m.power_source != "none";
    line += "," + csv_number(f.memory, m.peak_memory_gib) + "," + csv_number(f.memory, m.min_headroom_gib) + "," +
            csv_field(f.ran ? m.bottleneck : "") + "," + csv_field(f.ran ? m.currency : "") + "," +
            csv_number(priced, m.cost_per_step) + "," +
            csv_number(f.cost_per_mtok(), m.cost_per_million_tokens.value_or(0.0)) + "," +
            csv_number(f.owned_per_mtok(), m.owned_cost_per_million_tokens.value_or(0.0)) + "," +
            csv_number(powered, m.energy_per_step_j / 1e3) + "," +
            csv_number(f.energy_per_mtok(), f.energy_per_mtok_kwh()) + "," +
            csv_number(powered, m.average_power_w / 1e3) + "," + csv_field(f.ran ? m.pricing_source : "") + "," +
            csv_field(f.ran ? m.power_source : "");
    out += line + "\n";
  }
  return out;
}

std::string sweep_table(const Study& study, const std::vector<PointRow>& rows, std::size_t top) {
  std::vector<const PointRow*> ran, failed;
  for (const PointRow& row : rows) (row.outcome.status == PointStatus::ok ? ran : failed).push_back(&row);
  const auto key = [&](const PointRow* r) { return objective_key(study.objective, r->outcome.metrics); };
  std::stable_sort(ran.begin(), ran.end(), [&](const PointRow* a, const PointRow* b) {
    const auto ka = key(a), kb = key(b);
    if (ka.has_value() != kb.has_value()) return ka.has_value();
    if (ka && *ka != *kb) return *ka < *kb;
    return a->point < b->point;
  });
  const auto axes = study.axes();
  std::string out = study.title + ": " + std::to_string(rows.size()) + " points, sorted by " +
                    std::string(to_string(study.objective)) + " (best first)\n\n";
  const std::string currency = ran.empty() ? "" : ran.front()->outcome.metrics.currency;
  if (!ran.empty()) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> header{"#", "point"};
    for (const StudyAxis* a : axes) header.push_back(a->field);
    for (const char* h : {"step ms", "samples/s", "tokens/s", "MFU %", "peak GiB", "headroom GiB"}) header.push_back(h);
    header.push_back(currency + "/M tokens");
    header.push_back("owned " + currency + "/M tokens");
    header.push_back("kWh/M tokens");
    header.push_back("bottleneck");
    cells.push_back(header);
    const std::size_t shown = top ? std::min(top, ran.size()) : ran.size();
    for (std::size_t i = 0; i < shown; ++i) {
      const PointMetrics& m = ran[i]->outcome.metrics;
      const RowFigures f(ran[i]->outcome);
      std::vector<std::string> row{std::to_string(i + 1), std::to_string(ran[i]->point)};
      for (const std::string& t : axis_texts(study, ran[i]->point)) row.push_back(t);
      row.push_back(format("%.2f", m.step_time_ms));
      row.push_back(format("%.2f", m.samples_per_s));
      row.push_back(f.tokens() ? format("%.0f", *m.tokens_per_s) : "-");
      row.push_back(format("%.1f", 100.0 * m.mfu));
      row.push_back(format("%.1f", m.peak_memory_gib));
      row.push_back(format("%.1f", m.min_headroom_gib));
      row.push_back(f.cost_per_mtok() ? format("%.3f", *m.cost_per_million_tokens) : "-");
      row.push_back(f.owned_per_mtok() ? format("%.3f", *m.owned_cost_per_million_tokens) : "-");
      row.push_back(f.energy_per_mtok() ? format("%.3f", f.energy_per_mtok_kwh()) : "-");
      row.push_back(m.bottleneck);
      cells.push_back(row);
    }
    out += layout(cells, 2 + axes.size() + 9);
    if (shown < ran.size()) out += "... " + std::to_string(ran.size() - shown) + " more in the CSV and JSON outputs\n";
  }
  if (!failed.empty()) {
    out += "\nnot run:\n";
    const std::size_t shown = top ? std::min(top, failed.size()) : failed.size();
    for (std::size_t i = 0; i < shown; ++i) {
      std::string where;
      const std::vector<std::string> texts = axis_texts(study, failed[i]->point);
      for (std::size_t a = 0; a < axes.size(); ++a) where += (a ? ", " : "") + axes[a]->field + "=" + texts[a];
      out += "  point " + std::to_string(failed[i]->point) + " (" + where +
             "): " + std::string(to_string(failed[i]->outcome.status)) + ": " + failed[i]->outcome.reason + "\n";
    }
    if (shown < failed.size()) out += "  ... " + std::to_string(failed.size() - shown) + " more\n";
  }
  std::size_t oom = 0;
  for (const PointRow* r : failed) oom += r->outcome.status == PointStatus::out_of_memory;
  out += "\n" + std::to_string(rows.size()) + " points: " + std::to_string(ran.size()) + " ran, " +
         std::to_string(failed.size() - oom) + " invalid, " + std::to_string(oom) + " out of memory\n";
  return out;
}

void write_files_atomically(const std::vector<std::pair<std::filesystem::path, std::string>>& files) {
  std::vector<std::filesystem::path> temporaries;
  const auto discard = [&] {
    std::error_code ignored;
    for (const auto& t : temporaries) std::filesystem::remove(t, ignored);
  };
  for (const auto& [path, text] : files) {
    const std::filesystem::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
    temporaries.push_back(temporary);
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      discard();
      throw std::runtime_error("cannot write '" + path.string() + "'");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) std::filesystem::rename(temporaries[i], files[i].first);
}

std::string write_sweep_outputs(const Study& study, const std::vector<PointRow>& rows, const SweepOutputs& outputs) {
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  std::filesystem::path json_file = outputs.json_file;
  if (json_file.empty() && !outputs.plot_dir.empty()) {
    std::filesystem::create_directories(outputs.plot_dir);
    json_file = std::filesystem::path(outputs.plot_dir) / "sweep.json";
  }
  if (!json_file.empty()) files.emplace_back(json_file, sweep_json(study, rows).dump(2) + "\n");
  if (!outputs.csv_file.empty()) files.emplace_back(outputs.csv_file, sweep_csv(study, rows));
  write_files_atomically(files);
  std::string out = sweep_table(study, rows, outputs.top);
  for (const auto& [path, text] : files) out += "wrote " + path.string() + "\n";
  if (!outputs.plot_dir.empty()) {
    for (const auto& png : render_sweep_plots(json_file, outputs.plot_dir)) out += "wrote " + png.string() + "\n";
  }
  return out;
}

}  // namespace simctl
