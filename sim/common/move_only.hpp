// A base for a struct that holds pointers into its own members (into a vector's or a map's
// storage, which a move keeps in place): it moves, but is never copied.
#pragma once

namespace csx {

struct MoveOnly {
  MoveOnly() = default;
  MoveOnly(const MoveOnly&) = delete;
  MoveOnly& operator=(const MoveOnly&) = delete;
  MoveOnly(MoveOnly&&) = default;
  MoveOnly& operator=(MoveOnly&&) = default;
  ~MoveOnly() = default;
};

}  // namespace csx
