// Which micro_batch_size setting a pass runs with: the one rule of precedence between the
// command line, the file's sources and the default.
#pragma once

#include <optional>
#include <string>

#include "batching/mbs_setting.hpp"
#include "input/scenario.hpp"

namespace csx::app {

// The setting that wins and where it was given: "--micro-batch-size", the file's
// "file:line: key", or "" for the default.
struct MbsChoice {
  batching::MbsSetting setting;
  std::string where;
};

// Precedence (docs/rules.md#microbatching-rules): the --micro-batch-size flag, then the file's
// ScopedTrainFlags / ScopedValidateFlags callback, then its GlobalFlags callback, then the
// dataloader's micro_batch_size, else `auto`. `flag` is the flag's setting, if given; `file` is
// the pass's sources (io::Scenario::train_mbs or eval_mbs). Throws nothing.
[[nodiscard]] MbsChoice mbs_setting(const std::optional<batching::MbsSetting>& flag,
                                    const io::MbsSources& file);

}  // namespace csx::app
