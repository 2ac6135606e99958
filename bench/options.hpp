#pragma once
// The drivers' command lines (boost::program_options): parsed into `vm`; with --help the options
// are printed (after `usage`, if any) and the driver should return 0 (parseOptions says false).
#include <boost/program_options.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace hyrax::bench {

inline bool parseOptions(const boost::program_options::options_description& desc, int argc, char** argv,
                         boost::program_options::variables_map& vm, const char* usage = "") {
  boost::program_options::store(boost::program_options::parse_command_line(argc, argv, desc), vm);
  boost::program_options::notify(vm);
  if (!vm.count("help")) return true;
  std::cout << usage << desc;
  return false;
}

// A comma-separated option value ("1,2,4", "text,csv") as its items, empty ones left out.
inline std::vector<std::string> splitList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// A comma-separated list of counts ("1,2,4,8": client threads, streams) as numbers.
inline std::vector<int> splitCounts(const std::string& list) {
  std::vector<int> out;
  for (const std::string& item : splitList(list)) out.push_back(std::stoi(item));
  return out;
}

}  // namespace hyrax::bench
