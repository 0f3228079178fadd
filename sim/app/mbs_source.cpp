// The micro_batch_size precedence.
#include "app/mbs_source.hpp"

namespace csx::app {

MbsChoice mbs_setting(const std::optional<batching::MbsSetting>& flag, const io::MbsSources& file) {
  if (flag) return {*flag, "--micro-batch-size"};
  for (const auto* source : {&file.scoped, &file.global, &file.dataloader})
    if (source->value) return {*source->value, source->where};
  return {batching::MbsAuto{}, ""};
}

}  // namespace csx::app
