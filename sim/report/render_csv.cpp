#include <cstdio>
#include <stdexcept>

#include "sim/report/op_labels.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/rendezvous.hpp"
#include "sim/report/run_outputs.hpp"

namespace simctl {
namespace {

// Quotes a field only when CSV needs it (a comma, quote or newline inside).
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

std::string ms(TimePs t) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.6f", ps_to_ms(t));  // nanosecond resolution
  return buffer;
}

// One table: DIR/NAME.csv, or DIR/NAME.csv.gz when the tables are gzipped.
class CsvFile {
 public:
  CsvFile(const CsvTarget& target, const std::string& name, const std::string& header)
      : out_(target.dir / (name + (target.gzip ? ".csv.gz" : ".csv")), "CSV table '" + name + "'") {
    out_.write(header);
    out_.write("\n");
  }
  void row(const std::vector<std::string>& fields) {
    std::string& line = out_.buffer();
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i) line += ',';
      line += fields[i];
    }
    line += '\n';
    out_.flush_if_full();
  }
  void close() { out_.close(); }

 private:
  OutputFile out_;
};

// What bounds a compute op (compute, memory or launch); empty for other ops.
std::string bound_field(const RunView& run, std::uint32_t rank, const Op& op, OpIndex i) {
  if (!std::holds_alternative<ComputeWork>(op.work)) return "";
  return to_string(run.result.timeline(rank).kernel_bound(i));
}

void write_ops(const RunView& run, const CsvTarget& target) {
  CsvFile csv(target, "ops",
              "rank,op,name,phase,stream,kind,dimension,start_ms,ready_ms,end_ms,duration_ms,bound,flops,bytes");
  const RendezvousTable rendezvous = match_rendezvous(run.trace, run.result);
  for (std::uint32_t r = 0; r < run.trace.ranks.size(); ++r) {
    if (!target.selection.keeps_rank(r)) continue;
    const auto& ops = run.trace.ops(r);
    for (OpIndex i = 0; i < ops.size(); ++i) {
      const OpTiming& t = run.result.timeline(r).ops[i];
      if (!target.selection.keeps_op(t.start, t.end)) continue;
      const std::string stream = is_host_side(ops[i]) ? "host" : std::string(stream_name(ops[i].stream));
      csv.row({std::to_string(r), std::to_string(i), field(ops[i].name), std::string(to_string(ops[i].phase)), stream,
               work_kind(ops[i]), work_dimension(ops[i]), ms(t.start), ms(std::max(t.start, rendezvous.at(r, i).ready)),
               ms(t.end), ms(t.end - t.start), bound_field(run, r, ops[i], i), num(work_flops(ops[i])),
               num(work_bytes(ops[i]))});
    }
  }
  csv.close();
}

void write_links(const RunView& run, const CsvTarget& target) {
  CsvFile csv(target, "links",
              "link,name,kind,tier,busy_ms,utilisation,bytes,average_bandwidth_GBps,capacity_GBps,"
              "bandwidth_utilisation");
  for (const LinkReport& l : run.report.links) {
    csv.row({std::to_string(l.id), field(l.name), l.kind, field(l.tier), ms(l.busy), num(l.utilisation), num(l.bytes),
             num(l.average_bandwidth_bytes_per_s / 1e9), num(l.capacity_bytes_per_s / 1e9),
             num(l.bandwidth_utilisation)});
  }
  csv.close();
}

void write_ranks(const RunView& run, const CsvTarget& target) {
  std::string header = "rank,gpu,step_ms";
  for (Category c : kAllCategories) header += "," + std::string(to_string(c)) + "_ms";
  header += ",overlapped_communication_ms";
  CsvFile csv(target, "ranks", header);
  for (std::size_t r = 0; r < run.report.per_rank.size(); ++r) {
    const TimeBreakdown& b = run.report.per_rank[r];
    std::vector<std::string> row{std::to_string(r), field(run.system.part(run.system.gpus()[r]).name), ms(b.step)};
    for (Category c : kAllCategories) row.push_back(ms(b[c]));
    row.push_back(ms(b.overlapped_communication));
    csv.row(row);
  }
  csv.close();
}

void write_tiers(const RunView& run, const CsvTarget& target) {
  CsvFile csv(
      target, "tiers",
      "tier,links,busy_links,bytes,mean_utilisation,max_utilisation,mean_bandwidth_utilisation,oversubscription");
  for (const TierReport& t : run.report.tiers) {
    csv.row({field(t.name), std::to_string(t.links), std::to_string(t.busy_links), num(t.bytes),
             num(t.mean_utilisation), num(t.max_utilisation), num(t.mean_bandwidth_utilisation),
             num(t.oversubscription)});
  }
  csv.close();
}

void write_critical_path(const RunView& run, const CsvTarget& target) {
  CsvFile csv(target, "critical_path", "position,rank,op,name,resource,start_ms,end_ms,duration_ms");
  const auto& ops = run.report.critical_path.ops;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    csv.row({std::to_string(i), std::to_string(ops[i].op.rank), std::to_string(ops[i].op.op), field(ops[i].name),
             field(ops[i].resource), ms(ops[i].start), ms(ops[i].end), ms(ops[i].end - ops[i].start)});
  }
  csv.close();
}

}  // namespace

void write_csv_tables(const RunView& run, const CsvTarget& target) {
  std::error_code error;
  std::filesystem::create_directories(target.dir, error);
  if (error) throw std::runtime_error("cannot create CSV folder '" + target.dir.string() + "': " + error.message());
  write_ops(run, target);
  write_links(run, target);
  write_ranks(run, target);
  write_tiers(run, target);
  write_critical_path(run, target);
}

}  // namespace simctl
