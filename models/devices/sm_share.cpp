#include "models/devices/sm_share.hpp"

#include <stdexcept>
#include <string>

namespace simctl {

GpuSpec with_sms_taken(const GpuSpec& gpu, int comm_sms) {
  const int sms = gpu.compute.sm_count;
  if (comm_sms < 0 || comm_sms >= sms) {
    throw std::invalid_argument("a kernel beside communication holding " + std::to_string(comm_sms) + " SMs of " +
                                gpu.id + ", which has " + std::to_string(sms) +
                                " (compute_model.sm_count); communication may hold 0 … " +
                                std::to_string(sms > 0 ? sms - 1 : 0));
  }
  GpuSpec out = gpu;
  const double left = static_cast<double>(sms - comm_sms) / static_cast<double>(sms);
  for (DType d : kAllDTypes) {
    if (const auto& rate = gpu.peak_rate.find(d)) out.peak_rate.set(d, FlopRate{rate->flops_per_s * left});
  }
  out.compute.sm_count = sms - comm_sms;
  return out;
}

}  // namespace simctl
