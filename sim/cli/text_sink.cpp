// TextSink: open_memstream.
#include "cli/text_sink.hpp"

#include <cstdlib>
#include <stdexcept>

namespace csx::cli {

TextSink::TextSink() : file_(::open_memstream(&buffer_, &size_)) {
  if (!file_) throw std::runtime_error("cannot open an in-memory stream for the output");
}

TextSink::~TextSink() {
  std::fclose(file_);
  std::free(buffer_);
}

std::string TextSink::text() {
  std::fflush(file_);
  return {buffer_, size_};
}

}  // namespace csx::cli
