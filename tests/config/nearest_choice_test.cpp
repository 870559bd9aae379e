// "did you mean": the nearest valid word to a mistyped field or choice.
#include "sim/config/nearest_choice.hpp"

#include <catch2/catch.hpp>

#include "sim/config/config_node.hpp"
#include "tests/config/config_error_of.hpp"

using namespace simctl;

TEST_CASE("edit distance counts inserts, deletes, substitutions and swaps, ignoring case", "[config][did-you-mean]") {
  CHECK(edit_distance("micro_batch", "micro_batch") == 0);
  CHECK(edit_distance("microbatch", "micro_batch") == 1);
  CHECK(edit_distance("mciro_batch", "micro_batch") == 1);  // two letters swapped
  CHECK(edit_distance("Micro_Batch", "micro_batch") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("the nearest option is suggested only when it is a plausible typo", "[config][did-you-mean]") {
  const std::vector<std::string> fields{"model", "micro_batch", "global_batch", "parallel"};
  CHECK(nearest_choice("microbatch", fields) == "micro_batch");
  CHECK(nearest_choice("global_btach", fields) == "global_batch");
  CHECK(nearest_choice("paralel", fields) == "parallel");
  CHECK_FALSE(nearest_choice("optimizer", fields).has_value());
  CHECK_FALSE(nearest_choice("xyz", fields).has_value());
  CHECK(did_you_mean("zzzzzz", fields).empty());
}

TEST_CASE("an unknown field suggests the nearest valid one, then lists them all", "[config][did-you-mean]") {
  const auto root = ConfigNode::load_string("workload: {model: gpt2, microbatch: 4}\n", "w.yaml");
  const std::string message = test::config_error_message([&] {
    root.child("workload").expect_keys({"model", "micro_batch", "parallel"});
  });
  CHECK_THAT(message, Catch::StartsWith("w.yaml:1:"));
  CHECK_THAT(message, Catch::Contains("workload.microbatch"));
  CHECK_THAT(message, Catch::Contains("unknown field (did you mean `micro_batch`?); valid fields here are model, "
                                      "micro_batch or parallel"));
}

TEST_CASE("an invalid choice suggests the nearest valid one", "[config][did-you-mean]") {
  const auto root = ConfigNode::load_string("schedule: 1fb1\n", "p.yaml");
  const std::string message = test::config_error_message([&] {
    root.child("schedule").as_choice({"gpipe", "1f1b", "interleaved"});
  });
  CHECK_THAT(message, Catch::Contains("'1fb1' is not valid (did you mean `1f1b`?); choose gpipe, 1f1b or interleaved"));
}
