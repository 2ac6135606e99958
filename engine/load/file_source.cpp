#include "engine/load/file_source.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "engine/util/error.hpp"

namespace hyrax {

RecordReader::Source openFileSource(const std::string& path) {
  std::shared_ptr<FILE> file(std::fopen(path.c_str(), "rb"), [](FILE* f) {
    if (f) std::fclose(f);
  });
  if (!file)
    throw Error(errno == ENOENT ? sqlstate::UndefinedFile : sqlstate::IoError,
                "could not open file \"" + path + "\" for reading: " + std::strerror(errno));
  struct stat st;
  if (fstat(fileno(file.get()), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(sqlstate::WrongObjectType, "\"" + path + "\" is a directory");
  return [file, path](char* buf, size_t n) {
    size_t got = std::fread(buf, 1, n, file.get());
    if (got == 0 && std::ferror(file.get()))
      throw Error(sqlstate::IoError, "could not read from file \"" + path + "\": " + std::strerror(errno));
    return got;
  };
}

}  // namespace hyrax
