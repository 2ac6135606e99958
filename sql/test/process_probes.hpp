#pragma once
// Test helpers: what /proc says of processes (snapshot processes and their workers).
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace hyrax::test {

// Whether the process is gone and reaped (a zombie still answers kill 0), waiting up to 5 s for it.
inline bool reaped(int pid) {
  for (int i = 0; i < 5000; ++i) {
    if (kill(pid, 0) == -1 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// A process's state letter ('Z': ended, not yet reaped) and parent, from /proc/PID/stat;
// state 0 when there is no such process.
struct ProcStat {
  char state = 0;
  int ppid = 0;
};
inline ProcStat procStat(int pid) {
  ProcStat st;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line) || line.rfind(')') == std::string::npos) return st;
  std::istringstream rest(line.substr(line.rfind(')') + 2));  // the name may hold spaces and ')'
  rest >> st.state >> st.ppid;
  return st;
}

// Every process whose parent is `parent` (zombies too).
inline std::vector<int> childrenOf(int parent) {
  std::vector<int> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (procStat(std::stoi(name)).ppid == parent) pids.push_back(std::stoi(name));
  }
  return pids;
}

// The nice value and scheduling policy (SCHED_IDLE is 5) of each thread of process `pid`, from
// /proc/PID/task/TID/stat (fields 19 and 41).
struct ThreadPriority {
  int nice = 0, policy = 0;
};
inline std::vector<ThreadPriority> threadPriorities(int pid) {
  std::vector<ThreadPriority> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(entry.path() / "stat");
    std::string line;
    if (!std::getline(in, line) || line.rfind(')') == std::string::npos) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 2));  // field 3 on
    std::string field;
    ThreadPriority p;
    for (int f = 3; f <= 41 && rest >> field; ++f) {
      if (f == 19) p.nice = std::stoi(field);
      if (f == 41) p.policy = std::stoi(field);
    }
    out.push_back(p);
  }
  return out;
}

// This process's children that have ended and were not reaped.
inline int zombies() {
  int n = 0;
  for (int pid : childrenOf(getpid())) n += procStat(pid).state == 'Z';
  return n;
}

}  // namespace hyrax::test
