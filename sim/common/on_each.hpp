// A visitor of a std::variant from one callable per alternative:
// std::visit(OnEach{[](std::monostate) {...}, [](std::int64_t x) {...}, ...}, value).
#pragma once

namespace csx {

template <typename... F>
struct OnEach : F... {
  using F::operator()...;
};
// Clang before 17 deduces no aggregate's template arguments (P1816) without a guide.
template <typename... F>
OnEach(F...) -> OnEach<F...>;

}  // namespace csx
