// Output files are written whole or not at all: to a temporary file in the same directory,
// then renamed over the target. A command's outputs go through one OutputFiles, so that all of
// them (and its standard output) land, or none of them replaces anything.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace csx::io {

// The output file name that means standard output (`--csv -`, `--json -`;
// docs/cli.md#options-of-run-and-sweep).
inline constexpr const char* kStandardOutput = "-";

// Throws InputError when `path` cannot be written: its directory is missing or not writable,
// it names a directory, a device or anything but a regular file, or it is one of `inputs`.
// Call before any work starts. "-" is refused: a caller that takes standard output checks for
// kStandardOutput first.
void check_output_path(const std::string& path, const std::string& flag,
                       const std::vector<std::string>& inputs = {});

// Writes `content` to `path` atomically (through a symbolic link to its target). Throws
// InputError on failure; `path` is untouched then.
void write_file_atomically(const std::string& path, const std::string& content);

// A command's output transaction. stage() writes each file in full to a temporary file beside
// its target (a full file system fails there, with nothing replaced); commit() then flushes
// standard output and, only if that worked, renames every temporary over its target. Staged
// files not committed (an error, a failed standard output) are removed by the destructor.
// A rename itself failing after another succeeded (the temporaries are written and in the
// target's directory, so only a concurrent change of that directory does it) is reported.
// Content staged for kStandardOutput is held in memory and written by commit() just before
// standard output is flushed, once.
class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles();

  // Throws InputError "PATH: cannot write: REASON"; the target is untouched. For
  // kStandardOutput, keeps `content` for commit() (at most one such content; a second throws
  // std::logic_error).
  void stage(const std::string& path, const std::string& content);
  // Throws StdoutError when standard output cannot be written (nothing is replaced), and
  // InputError when a rename fails.
  void commit();
  // commit() without the check of standard output (a sweep's checkpoint of --csv); does not
  // write content staged for kStandardOutput.
  void commit_files();

 private:
  std::optional<std::string> to_stdout_;                     // staged for kStandardOutput
  std::vector<std::pair<std::string, std::string>> staged_;  // (temporary, target)
};

// Flushes standard output; throws StdoutError when it (or an earlier write to it) failed.
void flush_stdout();

}  // namespace csx::io
