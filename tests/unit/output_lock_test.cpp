// The output lock (two writers of one file: the second refused; an ending signal removes the
// process's own) and the grid fingerprint (FNV-1a against its published test vectors).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/errors.hpp"
#include "common/output_lock.hpp"
#include "common/short_hash.hpp"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("csxsim-lock-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(ShortHash, FoldsTheFnv1a64TestVectors) {
  // FNV-1a 64 test vectors (draft-eastlake-fnv): "" -> cbf29ce484222325,
  // "a" -> af63dc4c8601ec8c, "foobar" -> 85944171f73967e8; folded high ^ low by hand:
  // cbf29ce4 ^ 84222325 = 4fd0bfc1, af63dc4c ^ 8601ec8c = 296230c0, 85944171 ^ f73967e8 = 72ad2699.
  EXPECT_EQ(csx::short_hash(""), "4fd0bfc1");
  EXPECT_EQ(csx::short_hash("a"), "296230c0");
  EXPECT_EQ(csx::short_hash("foobar"), "72ad2699");
}

TEST(OutputLock, SecondWriterIsRefusedByName) {
  const fs::path d = temp_dir();
  const std::string out = (d / "sweep.csv").string();
  {
    const csx::OutputLock first(out, "--csv");
    EXPECT_TRUE(fs::exists(out + ".lock"));
    try {
      const csx::OutputLock second(out, "--csv");
      ADD_FAILURE() << "a second lock on one output was granted";
    } catch (const csx::InputError& e) {
      const std::string holder = "(csxsim pid " + std::to_string(::getpid()) + ")";
      EXPECT_NE(std::string(e.what()).find("--csv " + out + ": another process " + holder +
                                           " is writing this file"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(out + ".lock")) << "the lock file is removed on release";
  // A lock file left behind (its process killed) holds no lock: it is taken over.
  std::ofstream(out + ".lock") << "csxsim pid 999999\n";
  { const csx::OutputLock again(out, "--csv"); }
  EXPECT_FALSE(fs::exists(out + ".lock"));
  // A file of that name with other text is the user's: refused, kept as it was.
  std::ofstream(out + ".lock") << "my notes\n";
  EXPECT_THROW(csx::OutputLock(out, "--csv"), csx::InputError);
  std::ifstream in(out + ".lock");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "my notes\n");
  fs::remove_all(d);
}

TEST(OutputLock, MissingDirectoryIsAnInputError) {
  EXPECT_THROW(csx::OutputLock("/nonexistent-dir-csxsim/x.csv", "--csv"), csx::InputError);
}

// With the handler installed, a SIGTERM removes the lock files of the process that took them,
// not those a forked child inherited from its parent. The handler lives only in the children:
// this process keeps the signal's default action.
TEST(OutputLock, AnEndingSignalRemovesOnlyTheProcesssOwnLocks) {
  const fs::path d = temp_dir();
  const std::string parents = (d / "parent.csv").string(), childs = (d / "child.csv").string();
  const csx::OutputLock held(parents, "--csv");
  const pid_t child = ::fork();
  if (child == 0) {
    csx::OutputLock::remove_on_ending_signals();
    const csx::OutputLock mine(childs, "--csv");
    ::raise(SIGTERM);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_FALSE(fs::exists(childs + ".lock")) << "the child's own lock is removed";
  EXPECT_TRUE(fs::exists(parents + ".lock")) << "the parent's lock, inherited, stays";
}
