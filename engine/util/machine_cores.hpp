#pragma once
// The machine's cores (std::thread::hardware_concurrency(), at least 1), asked once per process:
// glibc answers by opening and reading /sys/devices/system/cpu/online each time, three system
// calls that every query's driver paid (a tenth of a point query's time over the wire).
#include <algorithm>
#include <cstdint>
#include <thread>

namespace hyrax {

inline uint32_t machineCores() {
  static const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  return cores;
}

}  // namespace hyrax
