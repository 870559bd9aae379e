#include <array>

#include "sim/exec/program_shape.hpp"
#include "sim/report/json_text.hpp"
#include "sim/report/op_labels.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/rendezvous.hpp"
#include "sim/report/run_outputs.hpp"

namespace simctl {
namespace {

using nlohmann::json;

// Thread ids inside each rank's process; the host first, then the streams.
constexpr int kHostThread = 0;
int thread_of(const Op& op) { return is_host_side(op) ? kHostThread : 1 + static_cast<int>(op.stream); }

int rank_pid(std::uint32_t rank) { return static_cast<int>(rank) + 1; }

// Events go one per line, so a trace of millions of them diffs and greps.
void write_event(OutputFile& file, const json& event) {
  file.write(event.dump());
  file.write(",\n");
}

json metadata(const char* name, int pid, int tid, json args) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

void write_rank_tracks(const RunView& run, std::uint32_t rank, OutputFile& file) {
  const int pid = rank_pid(rank);
  const Part& gpu = run.system.part(run.system.gpus()[rank]);
  write_event(file, metadata("process_name", pid, 0,
                             {{"name", "rank " + std::to_string(rank) + " (" + gpu.name + ", " + gpu.model + ")"}}));
  write_event(file, metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
  // Track 0 is the host; track 1 + s is stream s (Stream's order).
  constexpr std::array<const char*, kStreamCount + 1> threads{
      "host",           "compute stream",  "communication stream", "copy stream",         "loader stream",
      "overlap stream", "prefetch stream", "overlap send stream",  "data-parallel stream"};
  for (int tid = 0; tid < static_cast<int>(threads.size()); ++tid) {
    write_event(file, metadata("thread_name", pid, tid, {{"name", threads[tid]}}));
    write_event(file, metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
  }
}

// The bulk of the file, so written straight into the output buffer.
void write_op_event(const RunView& run, const RendezvousTable& rendezvous, std::uint32_t rank, OpIndex i,
                    OutputFile& file) {
  const Op& op = run.trace.ops(rank)[i];
  const OpTiming& t = run.result.timeline(rank).ops[i];
  std::string& out = file.buffer();
  out += R"({"ph":"X","name":)";
  append_json_string(out, op.name);
  out += R"(,"cat":)";
  append_json_string(out, to_string(op.phase));
  out += R"(,"pid":)";
  append_json_integer(out, rank_pid(rank));
  out += R"(,"tid":)";
  append_json_integer(out, thread_of(op));
  out += R"(,"ts":)";
  append_microseconds(out, t.start);
  out += R"(,"dur":)";
  append_microseconds(out, t.end - t.start);
  out += R"(,"args":{"op":)";
  append_json_integer(out, static_cast<long long>(i));
  out += R"(,"kind":)";
  append_json_string(out, work_kind(op));
  out += R"(,"bytes":)";
  append_json_number(out, work_bytes(op));
  if (std::holds_alternative<ComputeWork>(op.work)) {
    out += R"(,"flops":)";
    append_json_number(out, work_flops(op));
    out += R"(,"bound":)";
    append_json_string(out, to_string(run.result.timeline(rank).kernel_bound(i)));
  }
  if (const std::string dim = work_dimension(op); !dim.empty()) {
    out += R"(,"dimension":)";
    append_json_string(out, dim);
    // Before ready_us the op only waited for its peers.
    out += R"(,"ready_us":)";
    append_microseconds(out, std::max(t.start, rendezvous.at(rank, i).ready));
  }
  out += "}},\n";
  file.flush_if_full();
}

// The executor keeps each link's totals, not its rate over time, so each
// counter holds the link's busy fraction over the whole step. The last
// event closes the array: JSON allows no trailing comma.
void write_link_counters(const RunView& run, OutputFile& file) {
  const int pid = static_cast<int>(run.trace.ranks.size()) + 1;
  write_event(file, metadata("process_name", pid, 0, {{"name", "links (busy fraction, step mean)"}}));
  std::string last = metadata("process_sort_index", pid, 0, {{"sort_index", pid}}).dump();
  for (const LinkReport& l : run.report.links) {
    if (l.busy == 0) continue;
    for (TimePs at : {TimePs{0}, run.result.step_time}) {
      const double value = at == 0 ? l.utilisation : 0.0;
      file.write(last);
      file.write(",\n");
      last = json{{"ph", "C"}, {"name", l.name},     {"pid", pid},
                  {"tid", 0},  {"ts", ps_to_us(at)}, {"args", {{"busy", value}}}}
                 .dump();
    }
  }
  file.write(last);
  file.write("\n");
}

json other_data(const RunView& run, const OutputSelection& selection) {
  json data = {{"generator", "simctl"},
               {"system", run.report.labels.system},
               {"workload", run.report.labels.workload},
               {"step_time_ms", ps_to_ms(run.result.step_time)},
               {"link_counters", "busy fraction of each link averaged over the step"}};
  if (!selection.keeps_everything()) data["selection"] = selection.describe();
  return data;
}

}  // namespace

void write_trace(const RunView& run, const OutputSelection& selection, const std::filesystem::path& path) {
  OutputFile file(path, "the trace");
  file.write(R"({"displayTimeUnit":"ms","otherData":)");
  file.write(other_data(run, selection).dump());
  file.write(",\"traceEvents\":[\n");
  const RendezvousTable rendezvous = match_rendezvous(run.trace, run.result);
  for (std::uint32_t r = 0; r < run.trace.ranks.size(); ++r) {
    if (!selection.keeps_rank(r)) continue;
    write_rank_tracks(run, r, file);
    const auto& timings = run.result.timeline(r).ops;
    for (OpIndex i = 0; i < run.trace.ops(r).size(); ++i) {
      if (selection.keeps_op(timings[i].start, timings[i].end)) write_op_event(run, rendezvous, r, i, file);
    }
  }
  write_link_counters(run, file);
  file.write("]}\n");
  file.close();
}

}  // namespace simctl
