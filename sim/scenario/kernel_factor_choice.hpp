#pragma once
// The framework's kernel time factor for the GPUs a run's ranks sit on
// (workloads/frameworks.yaml): kernel_time_factor_by_architecture where the
// framework was fitted on that GPU generation, else its kernel_time_factor.
// A factor stands for what a generation's kernel measurements do not hold,
// so it is fitted per generation on that generation's in-sample runs.
#include "models/devices/device_catalogue.hpp"
#include "sim/topology/system.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Sets spec.kernel_time_factor. Ranks on GPUs of different architectures
// with different factors take the largest (the slowest generation paces a
// synchronous step). `ranks`: the world size, as for choose_attention_kernel.
void choose_kernel_time_factor(WorkloadSpec& spec, const System& system, const DeviceCatalogue& catalogue, int ranks);

}  // namespace simctl
