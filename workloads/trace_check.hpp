#pragma once
// Consistency of a trace's cross-references, checked before a trace from a
// file is replayed: dependencies point to earlier ops, collectives to groups
// their rank belongs to and that every member calls alike, sends to receives.
// A trace that passes can still deadlock (two ranks each waiting for the
// other's later op); the executor reports that.
#include <string>

#include "workloads/trace.hpp"

namespace simctl {

// Throws ConfigError naming `file_label`, the field as a path such as
// `ranks[3].ops[17].deps[0]`, and what would be valid.
void check_trace(const Trace& trace, const std::string& file_label);

}  // namespace simctl
