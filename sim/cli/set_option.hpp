#pragma once
// `--set FIELD=VALUE`, repeatable: fields written over the config's own for
// one command, as a sweep axis writes them for a point (ConfigOverrides), so
// a what-if needs no edited copy of the YAML. FIELD is the path errors name
// (`workload.parallel.tensor`, `system.nodes[0].count`, `system` for another
// system file); VALUE is YAML (`4`, `400 Gb/s`, `"{data: 2, tensor: 4}"`).
// An error in a value names the --set that wrote it.
#include <boost/program_options/options_description.hpp>
#include <ostream>

#include "sim/cli/options.hpp"
#include "sim/config/config_overrides.hpp"

namespace simctl {

// Adds --set to a command's named options.
void add_set_option(boost::program_options::options_description& named);

// The --set values as overrides, in the order given; throws ConfigError (at
// "--set ...") for one without `=`, field or value, a field the config
// schema lacks, or a value of the wrong type or unit.
ConfigOverrides set_overrides(const ParsedOptions& options);

// "with --set a=1 --set b=2\n", or nothing when none was given: a report
// says what it was run with.
void print_set_line(const ConfigOverrides& overrides, std::ostream& out);

}  // namespace simctl
