// A visitor of a std::variant from one callable per alternative:
// std::visit(OnEach{[](std::monostate) {...}, [](std::int64_t x) {...}, ...}, value).
#pragma once

namespace csx {

template <typename... F>
struct OnEach : F... {
  using F::operator()...;
};

}  // namespace csx
