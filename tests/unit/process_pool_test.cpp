// run_in_children: an exception from done() leaves no child behind.
#include "common/process_pool.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace csx {
namespace {

TEST(ProcessPool, ExceptionFromDoneReapsRunningChildren) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(run_in_children(
                   3, PoolOptions{3, true},
                   [](std::size_t i) {
                     if (i > 0) std::this_thread::sleep_for(std::chrono::seconds(60));
                     return std::to_string(i);
                   },
                   [](std::size_t, ChildOutcome) { throw std::runtime_error("done failed"); }),
               std::runtime_error);
  // The two sleeping children were ended and reaped: this process has no child left.
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace csx
