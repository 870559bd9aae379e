#pragma once
// The clock a GPU settles at when tensor-core kernels run back to back under
// its power limit, and what that costs their time. One model for every part
// of an architecture, fitted to a measurement at the part's TDP
// (models/devices/measured/):
//
//   board power while such kernels run, at clock fraction r of burst:
//     P(r) = S + (B - S) r^3        (dynamic power ~ f V^2, V ~ f near the top)
//   with S the idle draw and B the draw the kernels would reach at the burst
//   clock were the board not capped. The power controller holds P(r) at the
//   limit L. Measured at L = TDP: the settled clock r0 and the slowdown s0,
//   so B - S = (TDP - S) / r0^3, and at another limit
//     r = r0 cbrt((L - S) / (TDP - S))        (1 at most)
//     slowdown = r^-g,  g = ln s0 / ln(1/r0)
//   (the time grows less than 1/r: part of it waits on memory, which the SM
//   clock does not set).
//
// The measurement is written as ratios (idle / TDP, r0, s0), so parts of one
// architecture at their own TDP settle alike and a lower limit (a GPU
// variant's power_limit) settles lower.
namespace simctl {

struct PowerModel {
  double idle_fraction = 0.0;         // S / TDP
  double settled_clock_at_tdp = 1.0;  // r0: SM clock / burst clock, tensor kernels back to back at TDP
  double slowdown_at_tdp = 1.0;       // s0: their time / burst time there
  // A part on another part's die (GB200's GPU is B200's die at 1,200 W)
  // is priced from that die: its TDP anchors the ratios above, and the
  // part's datasheet tensor peak over the die part's converts a time priced
  // at the datasheet peak to one at the die's burst clock. A higher
  // datasheet peak bought with a higher power limit is then the clock the
  // limit sustains, not a faster burst. 0 and 1: the part's own die.
  double die_tdp_watts = 0.0;
  double datasheet_peak_over_die = 1.0;
};

// The TDP at which the model's ratios hold: the die part's, or the part's own.
double power_model_tdp(const PowerModel& model, double part_tdp_watts);

// Clock fraction r at `limit_watts` for a part of `tdp_watts`, at most 1.
// The limit must exceed the idle draw.
double settled_clock_fraction(const PowerModel& model, double tdp_watts, double limit_watts);

// Time of a tensor kernel run back to back over its time priced at the
// part's datasheet peak, at `limit_watts`, on a part whose burst clock is
// `clock_scale` of the modelled one's (a variant clocked lower reaches the
// settled clock from nearer, so it slows less from its own burst).
// `tdp_watts` is the part's own; a die part's anchors the model instead.
double sustained_tensor_slowdown(const PowerModel& model, double tdp_watts, double limit_watts,
                                 double clock_scale = 1.0);

}  // namespace simctl
