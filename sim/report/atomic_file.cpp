// Temporary file + rename, so a reader never sees a half-written output.
#include "report/atomic_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/errors.hpp"
#include "common/named_path.hpp"

namespace csx::io {

namespace {

// Writes `content` to a new temporary file beside `path`; returns its name. Throws InputError.
std::string write_temporary(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  static int serial = 0;
  const std::string tmp =
      (dir / fmt::format(".{}.tmp.{}.{}", fs::path(path).filename().string(), ::getpid(), serial++))
          .string();
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  // The file it replaces keeps its permissions (a CSV made private stays private).
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0) (void)::fchmod(::fileno(f), old.st_mode & 07777);
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() &&
                  std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const std::string why = std::strerror(errno);
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write: {}", path, ok ? std::strerror(errno) : why));
  }
  return tmp;
}

}  // namespace

void check_output_path(const std::string& given, const std::string& flag,
                       const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (given.empty())
    throw InputError(fmt::format("{} '': an empty path, expected an output file name", flag));
  if (given == kStandardOutput)
    throw InputError(
        fmt::format("{} -: standard output is taken only by --csv, --json and merge's -o; name a "
                    "file",
                    flag));
  // A stream's name (a pipe has no file to replace): csxsim writes standard output as -.
  if (given == "/dev/stdout" || given == "/dev/stderr" || given.starts_with("/dev/fd/") ||
      given.starts_with("/proc/self/fd/"))
    throw InputError(fmt::format(
        "{} {}: a standard stream, not a file; give - for standard output, or a file path", flag,
        given));
  const std::string path = link_target(given);
  if (fs::is_symlink(path, ec))  // link_target stopped after 40 links: a loop, as ELOOP is
    throw InputError(fmt::format(
        "{} {}: a loop of symbolic links (or a chain of more than 40); give a file path", flag,
        given));
  if (fs::is_directory(path, ec))
    throw InputError(fmt::format("{} {}: is a directory, expected a file path", flag, given));
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    throw InputError(
        fmt::format("{} {}: exists and is not a regular file (a device, a pipe or "
                    "a socket); give a file path",
                    flag, given));
  for (const auto& in : inputs)
    if (fs::exists(path, ec) && fs::equivalent(path, in, ec))
      throw InputError(
          fmt::format("{} {}: is the input file {}; refusing to overwrite it", flag, given, in));
  // Replacing the file that standard output or error goes to (e.g. --csv /dev/stdout > f)
  // would lose the report.
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0)
    for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
      struct stat stream {};
      if (::fstat(fd, &stream) == 0 && stream.st_dev == target.st_dev &&
          stream.st_ino == target.st_ino)
        throw InputError(fmt::format("{} {}: is where standard {} goes; refusing to replace it",
                                     flag, given, fd == STDOUT_FILENO ? "output" : "error"));
    }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw InputError(
        fs::exists(dir, ec)
            ? fmt::format("{} {}: {} is not a directory", flag, path, dir.string())
            : fmt::format("{} {}: directory {} does not exist", flag, path, dir.string()));
  // Try it: access() says yes to root even where nothing can be created (/proc, read-only mounts).
  const std::string probe = (dir / fmt::format(".csxsim-probe.{}", ::getpid())).string();
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f)
    throw InputError(
        fmt::format("{} {}: directory {} is not writable (creating a file there failed: {})", flag,
                    path, dir.string(), std::strerror(errno)));
  std::fclose(f);
  std::remove(probe.c_str());
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    throw InputError(fmt::format("{} {}: the file is not writable", flag, path));
}

void write_file_atomically(const std::string& given, const std::string& content) {
  if (given == kStandardOutput)
    throw std::logic_error("write_file_atomically writes files; standard output is OutputFiles'");
  OutputFiles out;
  out.stage(given, content);
  out.commit_files();
}

OutputFiles::~OutputFiles() {
  for (const auto& [tmp, target] : staged_) std::remove(tmp.c_str());
}

void OutputFiles::stage(const std::string& given, const std::string& content) {
  if (given == kStandardOutput) {
    if (to_stdout_) throw std::logic_error("two outputs staged for standard output");
    to_stdout_ = content;
    return;
  }
  const std::string path = link_target(given);
  staged_.emplace_back(write_temporary(path, content), path);
}

void OutputFiles::commit() {
  try {
    if (to_stdout_ && !to_stdout_->empty() &&
        std::fwrite(to_stdout_->data(), 1, to_stdout_->size(), stdout) != to_stdout_->size())
      throw StdoutError(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
    to_stdout_.reset();
    flush_stdout();
  } catch (const StdoutError& e) {
    throw StdoutError(fmt::format("{}; no output file was replaced", e.what()));
  }
  commit_files();
}

void OutputFiles::commit_files() {
  while (!staged_.empty()) {
    const auto& [tmp, target] = staged_.front();
    if (std::rename(tmp.c_str(), target.c_str()) != 0)
      throw InputError(fmt::format("{}: cannot write: {}", target, std::strerror(errno)));
    staged_.erase(staged_.begin());
  }
}

void flush_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw StdoutError(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
}

}  // namespace csx::io
