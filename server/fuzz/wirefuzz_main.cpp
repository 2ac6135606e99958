// hyrax-wirefuzz: the protocol fuzzer's command (wire_fuzz.hpp), for long runs and replays.
//   hyrax-wirefuzz --inputs 1000000 --seed 1
//   hyrax-wirefuzz --seed 1 --first 123456 --inputs 1     # replay one input
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "server/fuzz/wire_fuzz.hpp"

int main(int argc, char** argv) {
  hyrax::server::fuzz::RunConfig config;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "hyrax-wirefuzz: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--inputs") config.inputs = std::stoull(value());
    else if (a == "--seed") config.seed = std::stoull(value());
    else if (a == "--first") config.first = std::stoull(value());
    else if (a == "--timeout-ms") config.timeoutMs = std::stoi(value());
    else if (a == "--fresh-every") config.freshEvery = std::max<uint64_t>(1, std::stoull(value()));
    else if (a == "--slow-ms") config.slowMs = std::stoi(value());
    else if (a == "--keep-going") config.keepGoing = true;
    else if (a == "--artifacts") config.artifactDir = value();
    else {
      std::cout << "usage: hyrax-wirefuzz [--inputs N (1000)] [--seed S (1)] [--first I] [--timeout-ms MS (5000)]\n"
                   "                      [--fresh-every N (1)] [--slow-ms MS] [--keep-going] [--artifacts DIR]\n"
                   "Sends generated client streams to a server in this process; exits 1 when an input fails.\n";
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  config.log = [](const std::string& s) { std::cerr << s << std::endl; };
  const auto r = hyrax::server::fuzz::run(config);
  std::cout << "wirefuzz: seed " << config.seed << ", " << r.inputs << " inputs in " << r.seconds << " s ("
            << static_cast<uint64_t>(r.inputs / std::max(r.seconds, 1e-9)) << " inputs/s), " << r.failures << " failing, RSS "
            << r.rssStartKb / 1024 << " -> " << r.rssEndKb / 1024 << " MiB" << std::endl;
  std::cout << "replies:";
  for (auto& [what, n] : r.replies) std::cout << " [" << what << "] " << n;
  std::cout << std::endl;
  return r.failures ? 1 : 0;
}
