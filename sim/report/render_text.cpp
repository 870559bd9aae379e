#include <cstdarg>
#include <cstdio>
#include <string>

#include "sim/report/render.hpp"

namespace simctl {
namespace {

constexpr std::size_t kRanksShown = 16;  // more than this and the per-rank table points at --csv

std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return std::string(buffer) + "\n";
}

double share(TimePs part, TimePs whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string row(const char* label, TimePs t, TimePs step) {
  return line("  %-38s %11.3f %9.1f", label, ps_to_ms(t), share(t, step));
}

// One line per run of consecutive ranks whose figures print the same
// ("ranks 8-15"), so a 32-rank pipeline shows its four stages, not 32 lines.
std::string grouped_rows(const std::vector<std::string>& bodies) {
  std::string out;
  std::size_t groups = 0, i = 0;
  for (; i < bodies.size() && groups < kRanksShown; ++groups) {
    std::size_t j = i;
    while (j + 1 < bodies.size() && bodies[j + 1] == bodies[i]) ++j;
    const std::string label =
        i == j ? "rank " + std::to_string(i) : "ranks " + std::to_string(i) + "-" + std::to_string(j);
    out += line("  %-12s%s", label.c_str(), bodies[i].c_str());
    i = j + 1;
  }
  if (i < bodies.size()) out += line("  ... ranks %zu-%zu not shown (--csv DIR writes them all)", i, bodies.size() - 1);
  return out;
}

std::string breakdown_table(const StepReport& r) {
  const TimeBreakdown& b = r.mean;
  std::string out = line("Breakdown (mean over %d ranks)              time [ms] share [%%]", r.gpus);
  out += row("compute", b.compute(), b.step);
  out += row("  compute-bound kernels", b[Category::compute_bound], b.step);
  out += row("  memory-bound kernels", b[Category::compute_memory_bound], b.step);
  out += row("  launch-bound kernels", b[Category::compute_launch_bound], b.step);
  out += row("  optimizer", b[Category::optimizer], b.step);
  out += row("exposed communication", b.exposed_communication(), b.step);
  out += row("  data parallel (DP)", b[Category::comm_data], b.step);
  out += row("  tensor parallel (TP)", b[Category::comm_tensor], b.step);
  out += row("  pipeline parallel (PP)", b[Category::comm_pipeline], b.step);
  out += row("  expert parallel (EP)", b[Category::comm_expert], b.step);
  out += row("  context parallel (CP)", b[Category::comm_context], b.step);
  out += row("  other", b[Category::comm_other], b.step);
  out += row("pipeline bubble", b[Category::pipeline_bubble], b.step);
  out += row("data loading", b[Category::data_loading], b.step);
  out += row("host/device copies", b[Category::host_copy], b.step);
  out += row("idle (waiting on other ranks)", b[Category::waiting], b.step);
  out += line("  %s", std::string(60, '-').c_str());
  out += row("step", b.step, b.step);
  out += line("  communication hidden under compute: %.3f ms", ps_to_ms(b.overlapped_communication));
  return out;
}

std::string per_rank_table(const StepReport& r) {
  std::vector<std::string> bodies;
  for (const TimeBreakdown& b : r.per_rank) {
    char body[160];
    std::snprintf(body, sizeof body, "%10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f", ps_to_ms(b.compute()),
                  ps_to_ms(b[Category::compute_memory_bound]), ps_to_ms(b[Category::optimizer]),
                  ps_to_ms(b.exposed_communication()), ps_to_ms(b[Category::pipeline_bubble]),
                  ps_to_ms(b.exposed_copy()), ps_to_ms(b[Category::waiting]));
    bodies.push_back(body);
  }
  return line("Per rank [ms]   compute  mem-bound  optimizer  exp. comm     bubble     copies       idle") +
         grouped_rows(bodies);
}

std::string critical_path_table(const StepReport& r) {
  const CriticalPath& p = r.critical_path;
  if (p.ops.empty()) return "";
  std::string out = line("Critical path (%zu ops)                    time [ms] share [%%]", p.ops.size());
  for (std::size_t i = 0; i < p.resources.size() && i < 5; ++i) {
    out += row(p.resources[i].resource.c_str(), p.resources[i].time, r.step_time);
  }
  if (p.gaps > 0) out += row("(not covered by any op)", p.gaps, r.step_time);
  return out;
}

// One line per kind of collective: which algorithm and protocol it ran
// with, how often, and the bus bandwidth it reached.
std::string collectives_table(const StepReport& r) {
  if (r.collectives.empty()) return "";
  std::string out = line(
      "Collectives (time summed over calls)  group      algorithm/protocol   calls  size [GB]  time [ms]  busbw "
      "[GB/s]");
  for (const CollectiveReport& c : r.collectives) {
    const CollectiveKind& k = c.usage.kind;
    const std::string group = std::string(abbreviation(k.dimension)) + " x" + std::to_string(k.ranks);
    const std::string choice = std::string(to_string(k.algorithm)) + "/" + std::string(to_string(k.protocol));
    out += line("  %-36s %-10s %-18s %7llu %10.3f %10.3f %13.1f", std::string(to_string(k.op)).c_str(), group.c_str(),
                choice.c_str(), static_cast<unsigned long long>(c.usage.calls), c.usage.bytes / 1e9,
                ps_to_ms(c.usage.time), c.busbw_bytes_per_s / 1e9);
  }
  return out + "\n";
}

std::string links_table(const StepReport& r) {
  if (r.busiest_links.empty()) return "";
  std::string out = line(
      "Busiest links                               busy [ms]  busy [%%]  moved [GB]  avg [GB/s]  of capacity [%%]");
  for (const auto& l : r.busiest_links) {
    out += line("  %-42s %9.3f %8.1f %11.3f %11.1f %16.1f", l.name.c_str(), ps_to_ms(l.busy), 100.0 * l.utilisation,
                l.bytes / 1e9, l.average_bandwidth_bytes_per_s / 1e9, 100.0 * l.bandwidth_utilisation);
  }
  return out;
}

std::string tiers_table(const StepReport& r) {
  std::string out = line("Link tiers                  links   busy   mean busy [%%]  max busy [%%]  oversubscription");
  for (const auto& t : r.tiers) {
    if (t.busy_links == 0) continue;
    char over[32] = "-";
    if (t.oversubscription > 0) std::snprintf(over, sizeof over, "%.2f:1", t.oversubscription);
    out += line("  %-24s %7d %6d %15.1f %13.1f  %s", t.name.c_str(), t.links, t.busy_links, 100.0 * t.mean_utilisation,
                100.0 * t.max_utilisation, over);
  }
  return out;
}

std::string devices_table(const StepReport& r) {
  std::string out = line("Busiest device of each kind                 kind            busy [%%]  as busy");
  for (const auto& d : r.busiest_devices) {
    out += line("  %-42s %-15s %8.1f  %d more", d.name.c_str(), d.kind.c_str(), 100.0 * d.utilisation, d.peers);
  }
  return out;
}

std::string memory_table(const StepReport& r) {
  if (r.memory.empty()) return "";
  const RankMemory& first = r.memory.front();
  if (!first.estimated) {
    return line("Memory           no estimate for this workload yet; %.1f GiB per GPU", first.capacity_bytes / kGiB);
  }
  std::vector<std::string> bodies;
  for (const RankMemory& m : r.memory) {
    std::string items;
    for (const MemoryItem& item : m.items) {
      char text[96];
      std::snprintf(text, sizeof text, "%s%s %.1f", items.empty() ? "" : ", ", item.name.c_str(), item.bytes / kGiB);
      items += text;
    }
    char body[512];
    std::snprintf(body, sizeof body, "%8.1f %10.1f %10.1f   %s%s", m.used_bytes / kGiB, m.capacity_bytes / kGiB,
                  m.headroom_bytes / kGiB, m.out_of_memory() ? "OUT OF MEMORY: " : "", items.c_str());
    bodies.push_back(body);
  }
  return line("Memory per rank [GiB]  used   capacity   headroom   (breakdown)") + grouped_rows(bodies);
}

// Tokens/s only for models that have tokens (a CNN's or an MLP's samples do not).
std::string throughput_line(const StepReport& r) {
  if (!r.tokens_per_s) return line("Throughput       %.1f samples/s", r.samples_per_s);
  return line("Throughput       %.1f samples/s, %.0f tokens/s", r.samples_per_s, *r.tokens_per_s);
}

// A plan over some GPU's memory runs only when asked (`run --ignore-memory`):
// the report says so before anything else.
std::string out_of_memory_warning(const StepReport& r) {
  std::size_t over = 0, first = 0;
  for (std::size_t rank = r.memory.size(); rank-- > 0;) {
    if (r.memory[rank].out_of_memory()) ++over, first = rank;
  }
  if (over == 0) return "";
  const RankMemory& m = r.memory[first];
  return line(
      "WARNING: does not fit: rank %zu needs %.1f GiB but its GPU has %.1f GiB (%zu of %zu ranks over); "
      "simulated anyway (--ignore-memory)\n",
      first, m.used_bytes / kGiB, m.capacity_bytes / kGiB, over, r.memory.size());
}

std::string cost_lines(const StepReport& r) {
  const CostReport& c = r.costs;
  std::string out;
  if (c.priced && !r.tokens_per_s) {
    out += line("Cost             %.5f %s per step", c.cost_per_step, c.currency.c_str());
  } else if (c.priced) {
    out += line("Cost             %.5f %s per step, %.3f %s per million tokens", c.cost_per_step, c.currency.c_str(),
                c.cost_per_million_tokens, c.currency.c_str());
  }
  if (c.powered) {
    out += line("Energy           %.1f J per step (GPUs %.1f J), average %.2f kW", c.total_energy_joules,
                c.gpu_energy_joules, c.average_power_watts / 1e3);
  }
  if (c.owned && r.tokens_per_s) {
    out += line("Owned cost       %.5f %s per step, %.3f %s per million tokens (%s)", c.owned_cost_per_step,
                c.currency.c_str(), c.owned_cost_per_million_tokens, c.currency.c_str(), c.owned_assumptions.c_str());
  } else if (c.owned) {
    out += line("Owned cost       %.5f %s per step (%s)", c.owned_cost_per_step, c.currency.c_str(),
                c.owned_assumptions.c_str());
  }
  return out;
}

// ", the mean over the ranks of 16 x h100-sxm at 989 and 16 x a100 at 312":
// a mixed run's MFU is against a mean peak, which the line must say.
std::string mixed_peaks_words(const StepReport& r) {
  if (r.gpu_peaks.size() < 2) return "";
  std::string out = ", the mean over the ranks of ";
  for (std::size_t i = 0; i < r.gpu_peaks.size(); ++i) {
    const auto& p = r.gpu_peaks[i];
    char peak[32];
    std::snprintf(peak, sizeof peak, " at %.0f", p.tflops);
    out += std::string(i == 0                        ? ""
                       : i + 1 == r.gpu_peaks.size() ? " and "
                                                     : ", ") +
           std::to_string(p.ranks) + " x " + p.model + peak;
  }
  return out;
}

}  // namespace

std::string render_text(const StepReport& r) {
  std::string out = out_of_memory_warning(r);
  out += line("System    %s", r.labels.system.c_str());
  out += line("Workload  %s", r.labels.workload.c_str());
  if (!r.labels.priced_by.empty()) out += line("Priced    %s", r.labels.priced_by.c_str());
  out += "\n";
  out += line("Step time        %.3f ms", ps_to_ms(r.step_time));
  out += throughput_line(r);
  out +=
      line("Model FLOPs      %.1f TFLOP/s per GPU, MFU %.1f %% (of %.0f TFLOP/s dense %s peak%s)",
           r.model_tflops_per_gpu, 100.0 * r.mfu, r.peak_tflops_per_gpu, r.dtype.c_str(), mixed_peaks_words(r).c_str());
  out += cost_lines(r);
  out += memory_table(r);
  out += "\n" + breakdown_table(r) + "\n" + per_rank_table(r) + "\n" + critical_path_table(r) + "\n";
  out += collectives_table(r);
  out += links_table(r) + "\n" + tiers_table(r) + "\n" + devices_table(r);
  out += "\nBottleneck: " + r.bottleneck + "\n";
  out += line("Simulated %zu ops, %llu events and %llu flows.", r.ops, static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.flows));
  return out;
}

}  // namespace simctl
