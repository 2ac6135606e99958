#pragma once
// The drivers' command lines (boost::program_options): parsed into `vm`; with --help the options
// are printed (after `usage`, if any) and the driver should return 0 (parseOptions says false).
#include <boost/program_options.hpp>

#include <iostream>

namespace hyrax::bench {

inline bool parseOptions(const boost::program_options::options_description& desc, int argc, char** argv,
                         boost::program_options::variables_map& vm, const char* usage = "") {
  boost::program_options::store(boost::program_options::parse_command_line(argc, argv, desc), vm);
  boost::program_options::notify(vm);
  if (!vm.count("help")) return true;
  std::cout << usage << desc;
  return false;
}

}  // namespace hyrax::bench
