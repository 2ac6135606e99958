#pragma once
// A protocol fuzzer for the server (issue 19): client byte streams generated from a seed (valid
// sessions, grammar-built extended-protocol sequences, then mutated) are sent to a real server on
// a Unix socket, and each must leave the server well: its replies framed and never an internal
// error, the session answering a probe or ending, and a fresh client served, all within bounds.
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace hyrax::server::fuzz {

// One generated client stream.
struct Input {
  std::string bytes;
  std::string kind;  // which generator made it (reports, statistics)
  // The stream is whole messages after a valid startup: the session must answer the probe
  // sent after it (or end), not wait for more bytes.
  bool framed = false;
  // The stream ends in a message whose claimed length is over the limit: the reply must be
  // ErrorResponse FATAL 08P01 and the connection must close.
  bool oversized = false;
  bool tcp = false;  // sent over loopback TCP, where logins are SCRAM-SHA-256 (the Unix socket trusts)
};

struct GeneratorConfig {
  uint32_t maxMessageBytes = 1u << 20;  // the server's limit, for lengths just over and under it
};

// Input number `index` of the run with `seed`: the same pair gives the same bytes on any machine
// (std::mt19937_64 is specified exactly; distributions are not, so none is used).
Input generate(uint64_t seed, uint64_t index, const GeneratorConfig& config = {});
// The valid session every truncation starts from, and its length: input `index` < that length of
// a run is this session cut after `index` bytes (truncation at every position).
std::string baseSession();

struct RunConfig {
  uint64_t seed = 1;
  uint64_t inputs = 1000;
  uint64_t first = 0;          // the index of the first input (replaying one: --first N --inputs 1)
  int timeoutMs = 5000;        // for an answer, for the end of a session, for a fresh client
  uint64_t freshEvery = 1;     // a fresh client after every this many inputs
  uint32_t maxMessageBytes = 1u << 20;
  int slowMs = 0;               // inputs slower than this are logged (0: none)
  bool keepGoing = false;      // report every failing input instead of stopping at the first
  std::string artifactDir;     // failing inputs are written here (empty: not written)
  std::function<void(const std::string&)> log;  // progress and failures
};

struct RunResult {
  uint64_t inputs = 0;
  uint64_t failures = 0;
  double seconds = 0;
  size_t rssStartKb = 0, rssEndKb = 0;  // after the first tenth of the run, and at its end
  std::vector<std::string> failureReports;
  // How deep the inputs got: replies by message type ("E 22P03": ErrorResponses by SQLSTATE).
  std::map<std::string, uint64_t> replies;
};

// Starts a server in this process on a fresh database (Unix socket in a temporary directory), runs
// the inputs against it and stops it. A crash of the server is a crash of this process: a
// handler for fatal signals names the input being run, to replay with --first.
RunResult run(const RunConfig& config);

}  // namespace hyrax::server::fuzz
