#include "engine/util/forked_process.hpp"

#include <unistd.h>

namespace hyrax {

namespace {
const pid_t gStartPid = getpid();  // static initialization: the starting process's own; a child inherits it
}  // namespace

bool forkedProcess() { return getpid() != gStartPid; }

}  // namespace hyrax
