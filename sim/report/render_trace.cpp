#include <array>

#include "sim/exec/program_shape.hpp"
#include "sim/report/op_labels.hpp"
#include "sim/report/rendezvous.hpp"
#include "sim/report/run_outputs.hpp"

namespace simctl {
namespace {

using nlohmann::json;

// Thread ids inside each rank's process; the host first, then the streams.
constexpr int kHostThread = 0;
int thread_of(const Op& op) { return is_host_side(op) ? kHostThread : 1 + static_cast<int>(op.stream); }

double us(TimePs t) { return ps_to_us(t); }

int rank_pid(std::uint32_t rank) { return static_cast<int>(rank) + 1; }

json metadata(const char* name, int pid, int tid, json args) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

void add_rank_tracks(const RunView& run, std::uint32_t rank, json& events) {
  const int pid = rank_pid(rank);
  const Part& gpu = run.system.part(run.system.gpus()[rank]);
  events.push_back(metadata("process_name", pid, 0,
                            {{"name", "rank " + std::to_string(rank) + " (" + gpu.name + ", " + gpu.model + ")"}}));
  events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
  // Track 0 is the host; track 1 + s is stream s (Stream's order).
  constexpr std::array<const char*, kStreamCount + 1> threads{
      "host",          "compute stream", "communication stream", "copy stream",
      "loader stream", "overlap stream", "prefetch stream",      "overlap send stream"};
  for (int tid = 0; tid < static_cast<int>(threads.size()); ++tid) {
    events.push_back(metadata("thread_name", pid, tid, {{"name", threads[tid]}}));
    events.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
  }
}

json op_event(const RunView& run, const Rendezvous& rv, std::uint32_t rank, OpIndex i) {
  const Op& op = run.trace.ops(rank)[i];
  const OpTiming& t = run.result.timeline(rank).ops[i];
  json args = {{"op", i}, {"kind", work_kind(op)}, {"bytes", work_bytes(op)}};
  if (std::holds_alternative<ComputeWork>(op.work)) {
    args["flops"] = work_flops(op);
    args["bound"] = to_string(run.result.timeline(rank).kernel_bound(i));
  }
  if (const std::string dim = work_dimension(op); !dim.empty()) {
    args["dimension"] = dim;
    // Before ready_us the op only waited for its peers.
    args["ready_us"] = us(std::max(t.start, rv.ready));
  }
  return {{"ph", "X"},
          {"name", op.name},
          {"cat", std::string(to_string(op.phase))},
          {"pid", rank_pid(rank)},
          {"tid", thread_of(op)},
          {"ts", us(t.start)},
          {"dur", us(t.end - t.start)},
          {"args", std::move(args)}};
}

// The executor keeps each link's totals, not its rate over time, so each
// counter holds the link's busy fraction over the whole step.
void add_link_counters(const RunView& run, json& events) {
  const int pid = static_cast<int>(run.trace.ranks.size()) + 1;
  events.push_back(metadata("process_name", pid, 0, {{"name", "links (busy fraction, step mean)"}}));
  events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
  for (const LinkReport& l : run.report.links) {
    if (l.busy == 0) continue;
    for (TimePs at : {TimePs{0}, run.result.step_time}) {
      const double value = at == 0 ? l.utilisation : 0.0;
      events.push_back(
          {{"ph", "C"}, {"name", l.name}, {"pid", pid}, {"tid", 0}, {"ts", us(at)}, {"args", {{"busy", value}}}});
    }
  }
}

}  // namespace

json render_trace(const RunView& run) {
  json events = json::array();
  const RendezvousTable rendezvous = match_rendezvous(run.trace, run.result);
  for (std::uint32_t r = 0; r < run.trace.ranks.size(); ++r) {
    add_rank_tracks(run, r, events);
    for (OpIndex i = 0; i < run.trace.ops(r).size(); ++i) {
      events.push_back(op_event(run, rendezvous.at(r, i), r, i));
    }
  }
  add_link_counters(run, events);
  return {{"displayTimeUnit", "ms"},
          {"otherData",
           {{"generator", "simctl"},
            {"system", run.report.labels.system},
            {"workload", run.report.labels.workload},
            {"step_time_ms", ps_to_ms(run.result.step_time)},
            {"link_counters", "busy fraction of each link averaged over the step"}}},
          {"traceEvents", std::move(events)}};
}

}  // namespace simctl
