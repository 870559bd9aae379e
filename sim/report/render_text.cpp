#include <cstdarg>
#include <cstdio>
#include <string>

#include "sim/report/render.hpp"

namespace simctl {
namespace {

std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return std::string(buffer) + "\n";
}

double share(TimePs part, TimePs whole) { return whole > 0 ? 100.0 * static_cast<double>(part) / whole : 0.0; }

std::string breakdown_row(const char* label, TimePs t, TimePs step) {
  return line("  %-34s %11.3f %7.1f", label, ps_to_ms(t), share(t, step));
}

std::string breakdown_table(const StepReport& r) {
  const TimeBreakdown& b = r.mean;
  std::string out = line("Breakdown (mean over %d ranks)            time [ms]   share [%%]", r.gpus);
  out += breakdown_row("compute", b.compute, b.step);
  out += breakdown_row("  of which memory-bound kernels", b.compute_memory_bound, b.step);
  out += breakdown_row("exposed communication", b.exposed_communication, b.step);
  out += breakdown_row("exposed host/device copies", b.exposed_copy, b.step);
  out += breakdown_row("idle (waiting on other ranks/deps)", b.idle, b.step);
  out += line("  %s", std::string(54, '-').c_str());
  out += breakdown_row("step", b.step, b.step);
  out += line("  communication hidden under compute: %.3f ms", ps_to_ms(b.overlapped_communication));
  return out;
}

std::string links_table(const StepReport& r) {
  if (r.busiest_links.empty()) return "";
  std::string out =
      line("Busiest links                                busy [ms]   util [%%]   moved [GB]   avg [GB/s]");
  for (const auto& l : r.busiest_links) {
    out += line("  %-42s %9.3f %9.1f %12.3f %12.1f", l.name.c_str(), ps_to_ms(l.busy), 100.0 * l.utilisation,
                l.bytes / 1e9, l.average_bandwidth_bytes_per_s / 1e9);
  }
  return out;
}

}  // namespace

std::string render_text(const StepReport& r) {
  std::string out;
  out += line("System    %s", r.labels.system.c_str());
  out += line("Workload  %s", r.labels.workload.c_str());
  out += "\n";
  out += line("Step time        %.3f ms", ps_to_ms(r.step_time));
  out += line("Throughput       %.1f samples/s, %.0f tokens/s", r.samples_per_s, r.tokens_per_s);
  out += line("Model FLOPs      %.1f TFLOP/s per GPU, MFU %.1f %% (of %.0f TFLOP/s dense %s peak)",
              r.model_tflops_per_gpu, 100.0 * r.mfu, r.peak_tflops_per_gpu, r.dtype.c_str());
  out += "\n" + breakdown_table(r) + "\n" + links_table(r);
  out += "\nBottleneck: " + r.bottleneck + "\n";
  out += line("Simulated %llu events and %llu flows.", static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.flows));
  return out;
}

}  // namespace simctl
