// A std::FILE* whose text stays in memory (POSIX open_memstream): what a command prints, kept
// for the Python module's Result.text or discarded (validate with --csv -). No file descriptor
// is involved, so sinks of several threads do not interfere.
#pragma once

#include <cstdio>
#include <string>

namespace csx::cli {

class TextSink {
 public:
  // Throws std::runtime_error when the stream cannot be opened (out of memory).
  TextSink();
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;
  ~TextSink();
  [[nodiscard]] std::FILE* file() const { return file_; }
  // Everything written so far.
  [[nodiscard]] std::string text();

 private:
  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_ = nullptr;
};

}  // namespace csx::cli
