// The fuzzer's inputs (wire_fuzz.hpp): each a client stream built from (seed, index) alone.
// Kinds: truncations of one valid session at every position; grammar-built sessions of
// Parse/Bind/Describe/Execute/Close/Sync/Query/copy messages with random parameter counts,
// formats and values (binary values of wrong lengths, NUMERIC headers with bad weights, ...),
// in any order; startup variants (SSLRequest twice, CancelRequest with random keys, garbage
// parameters, bad lengths); lengths outside the limits; and those sessions mutated (bit flips,
// truncation, lengths off by one / negative / huge, inserted, deleted and repeated bytes).
#include <algorithm>
#include <array>
#include <cstring>

#include "server/fuzz/wire_fuzz.hpp"
#include "server/protocol.hpp"
#include "server/test/test_server.hpp"

namespace hyrax::server::fuzz {

namespace {

using test::RawClient;

// mt19937_64's output is fixed by the standard; the reductions below are ours, so a seed gives
// the same inputs with any standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t next() { return g_(); }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T, size_t N>
  const T& pick(const std::array<T, N>& a) { return a[below(N)]; }
  std::string bytes(size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(next());
    return s;
  }

 private:
  std::mt19937_64 g_;
};

// The tables the statements use are created by the driver (wire_fuzz.cpp: kSetup).
const std::array<const char*, 22> kStatements = {
    "SELECT a, b FROM t WHERE a = $1",
    "INSERT INTO t2 VALUES ($1, $2)",
    "SELECT a + $1 FROM t",
    "SELECT * FROM t",
    "SELECT c FROM t WHERE c > $1",
    "SELECT d, e FROM t WHERE d < $1 AND e < $2",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SELECT 1/0",
    "COPY t2 FROM STDIN",
    "COPY t TO STDOUT",
    "",
    "SELECT $1, $2, $3",
    "DELETE FROM t2 WHERE a = $1",
    "garbage ;; ((",
    "SHOW ALL",
    "SELECT a FROM t; SELECT b FROM t",
    "SELECT f FROM t WHERE f = $1 OR b = $2",
    "UPDATE t2 SET b = $1 WHERE a = $2",
    "SELECT $1",
    "SELECT count(*) FROM t2",
};

// Type OIDs a Parse declares: hyrax's, unknown, and ones it does not take (bytea, json, nonsense).
const std::array<uint32_t, 19> kOids = {0,   16,  21,   23,   20,   1700, 700,  701, 1042, 1043,
                                        25,  1082, 1114, 1083, 1186, 705,  17,   114, 0xFFFFFFFF};

const std::array<const char*, 20> kTextValues = {
    "1",    "-1",  "2147483648",          "abc",        "",        "1.5",        "2024-01-01", "NaN", "\xff\xfe",
    "99999999999999999999", "1e400", "00:00:00", "1 day", "t", "2024-13-45 25:61:61", "-0",
    "12345678.901",  "  42  ", "infinity", "1e-400"};

std::string int16(int v) { return RawClient::int16(static_cast<uint16_t>(v)); }
std::string int32(int64_t v) { return RawClient::int32(static_cast<uint32_t>(v)); }
std::string int64(int64_t v) { return int32(v >> 32) + int32(v & 0xFFFFFFFF); }
std::string cstr(const std::string& s) { return s + '\0'; }

// A NUMERIC binary value with a header drawn from its edges: digit counts that disagree with the
// digits that follow, weights from -32768 to 32767, signs that are none, NaN or infinities,
// digits outside 0..9999.
std::string numericValue(Rng& r) {
  const std::array<int, 7> ndigits = {0, 1, 2, 5, -1, 0x7FFF, 3};
  const std::array<int, 9> weights = {-32768, -1, 0, 1, 5, 6, 32767, -6, 4};
  const std::array<int, 6> signs = {0, 0x4000, 0xC000, 0xD000, 0xF000, 0x1234};
  const std::array<int, 5> scales = {0, 2, 0x3FFF, 0x4000, 0xFFFF};
  int n = r.pick(ndigits);
  std::string v = int16(n) + int16(r.chance(70) ? r.pick(weights) : static_cast<int>(r.next())) +
                  int16(r.chance(80) ? r.pick(signs) : static_cast<int>(r.next())) + int16(r.pick(scales));
  const int written = r.chance(80) ? std::clamp(n, 0, 6) : static_cast<int>(r.below(7));
  const std::array<int, 6> digits = {0, 9999, 10000, -1, 1234, 1};
  for (int i = 0; i < written; ++i) v += int16(r.chance(80) ? r.pick(digits) : static_cast<int>(r.next()));
  return v;
}

// A parameter value in binary: right-sized integers and floats, their sizes off by one,
// dates and timestamps at the ends of int32/int64, intervals, NUMERIC headers, random bytes.
std::string binaryValue(Rng& r) {
  switch (r.below(9)) {
    case 0: return r.bytes(r.below(18));
    case 1: return int32(static_cast<int64_t>(r.next()));
    case 2: return int64(r.chance(50) ? INT64_MIN : INT64_MAX);
    case 3: return int16(static_cast<int>(r.next()));
    case 4: return numericValue(r);
    case 5: return int64(static_cast<int64_t>(r.next())) + int32(static_cast<int64_t>(r.next())) + int32(static_cast<int64_t>(r.next()));
    case 6: return std::string(1, static_cast<char>(r.below(3)));
    case 7: return int32(static_cast<int64_t>(r.next())).substr(0, 1 + r.below(3));  // a size off by one or more
    default: return int64(static_cast<int64_t>(r.next())) + std::string(1, static_cast<char>(r.next()));
  }
}

// The highest $n of a statement: the parameters a Bind of it must supply.
int parameterCount(const std::string& sql) {
  int n = 0;
  for (size_t i = 0; i + 1 < sql.size(); ++i)
    if (sql[i] == '$' && sql[i + 1] >= '1' && sql[i + 1] <= '9') n = std::max(n, sql[i + 1] - '0');
  return n;
}

// What a session's messages so far prepared: a Bind usually names it and supplies its parameter
// count, so the values' decoding is reached (a random Bind mostly fails earlier).
struct Prepared {
  std::string statement, portal;
  int parameters = -1;  // -1: nothing prepared yet
};

std::string name(Rng& r) {
  const std::array<const char*, 5> names = {"", "s1", "s2", "nope", "p1"};
  return r.pick(names);
}

std::string parseMessage(Rng& r, Prepared& p) {
  std::string sql = r.chance(95) ? kStatements[r.below(kStatements.size())] : r.bytes(r.below(20));
  sql.erase(std::remove(sql.begin(), sql.end(), '\0'), sql.end());
  int n = r.chance(50) ? parameterCount(sql) : r.chance(80) ? static_cast<int>(r.below(4)) : r.chance(50) ? -1 : 200;
  p.statement = name(r);
  p.parameters = parameterCount(sql);
  std::string body = cstr(p.statement) + cstr(sql) + int16(n);
  for (int i = 0; i < std::max(n, 0) && i < 8; ++i) body += int32(r.chance(85) ? kOids[r.below(15)] : r.pick(kOids));  // hyrax's first
  return RawClient::message(frontend::Parse, body);
}

std::string bindMessage(Rng& r, Prepared& p) {
  const bool coherent = p.parameters >= 0 && r.chance(85);
  if (coherent) p.portal = name(r);
  std::string body = coherent ? cstr(p.portal) + cstr(p.statement) : cstr(name(r)) + cstr(name(r));
  int params = coherent && r.chance(90) ? p.parameters : static_cast<int>(r.below(4));
  if (r.chance(5)) params = r.chance(50) ? -1 : 0x7FFF;
  const std::array<int, 6> codes = {0, 1, 1, 0, 2, -1};
  int formats = r.chance(30) ? 0 : r.chance(40) ? 1 : r.chance(80) ? std::max(params, 0) : static_cast<int>(r.below(5));
  if (r.chance(2)) formats = -1;
  body += int16(formats);
  for (int i = 0; i < std::max(formats, 0) && i < 8; ++i) body += int16(coherent && r.chance(90) ? static_cast<int>(r.below(2)) : r.pick(codes));
  body += int16(params);
  for (int i = 0; i < std::max(params, 0) && i < 8; ++i) {
    if (r.chance(10)) {
      body += int32(r.chance(80) ? -1 : r.chance(50) ? -2 : INT32_MIN);  // NULL, or lengths below -1
      continue;
    }
    std::string v = r.chance(50) ? binaryValue(r) : kTextValues[r.below(kTextValues.size())];
    int64_t claimed = static_cast<int64_t>(v.size());
    if (r.chance(5)) claimed += r.chance(50) ? 1 : -1;  // a length that disagrees with the bytes
    if (r.chance(1)) claimed = INT32_MAX;
    body += int32(claimed) + v;
  }
  int results = r.chance(50) ? 0 : r.chance(60) ? 1 : static_cast<int>(r.below(6));
  body += int16(results);
  const std::array<int, 4> resultCodes = {0, 1, 1, 7};
  for (int i = 0; i < results; ++i) body += int16(r.pick(resultCodes));
  if (r.chance(3)) body += r.bytes(1 + r.below(3));  // trailing bytes
  return RawClient::message(frontend::Bind, body);
}

std::string oneMessage(Rng& r, Prepared& p) {
  const uint64_t w = r.below(100);
  if (w < 20) return parseMessage(r, p);
  if (w < 40) return bindMessage(r, p);
  if (w < 55) {
    const std::array<int64_t, 6> limits = {0, 1, 2, -1, INT32_MIN, 1000};
    return RawClient::message(frontend::Execute, cstr(r.chance(70) ? p.portal : name(r)) + int32(r.pick(limits)));
  }
  if (w < 70) {
    const std::array<char, 4> what = {'S', 'P', 'P', 'x'};
    const char c = r.pick(what);
    return RawClient::message(w < 65 ? frontend::Describe : frontend::Close,
                              std::string(1, c) + cstr(r.chance(70) ? (c == 'S' ? p.statement : p.portal) : name(r)));
  }
  if (w < 83) return RawClient::message(frontend::Sync, "");
  if (w < 90) return RawClient::query(kStatements[r.below(kStatements.size())]);
  if (w < 93) {
    const std::array<const char*, 5> rows = {"1\tabc\n", "2\t\\N\n", "x\ty\tz\n", "3\t", "\\.\n"};
    return RawClient::message(frontend::CopyData, r.chance(80) ? std::string(r.pick(rows)) : r.bytes(r.below(16)));
  }
  if (w < 95) return RawClient::message(frontend::CopyDone, "");
  if (w < 96) return RawClient::message(frontend::CopyFail, cstr("stop"));
  if (w < 97) return RawClient::message(frontend::Flush, "");
  if (w < 98) return RawClient::message(frontend::FunctionCall, r.bytes(r.below(12)));
  if (w < 99) return RawClient::message(frontend::Terminate, "");
  return RawClient::message(static_cast<char>(r.next()), r.bytes(r.below(8)));  // any type byte
}

std::string validStartup() {
  return RawClient::startupPacket(kProtocolVersion3, {{"user", "fuzz"}, {"database", "hyrax"}, {"application_name", "wirefuzz"}});
}

// Messages after a valid startup; with the offsets where each message begins.
struct Session {
  std::string bytes;
  std::vector<size_t> starts;
};

// noEnd: no message that ends the session (Terminate, an unknown type); withStartup: begins
// with a valid startup packet (after an SSLRequest, sometimes).
Session grammarSession(Rng& r, bool noEnd, bool withStartup = true) {
  Session s;
  if (withStartup)
    s.bytes = r.chance(10) ? RawClient::int32(8) + RawClient::int32(kSslRequestCode) + validStartup() : validStartup();
  if (r.chance(1)) {  // a Sync storm
    for (uint64_t i = 0, n = 100 + r.below(2000); i < n; ++i) {
      s.starts.push_back(s.bytes.size());
      s.bytes += RawClient::message(frontend::Sync, "");
    }
    return s;
  }
  Prepared prepared;
  const bool pipelines = r.chance(50);  // Parse, Bind, Describe, Execute, Sync in order, with strays
  for (uint64_t i = 0, n = pipelines ? 5 * (1 + r.below(4)) : 1 + r.below(24); i < n; ++i) {
    std::string m;
    if (pipelines && !r.chance(15)) {
      switch (i % 5) {
        case 0: m = parseMessage(r, prepared); break;
        case 1: m = bindMessage(r, prepared); break;
        case 2: m = RawClient::message(frontend::Describe, (r.chance(50) ? "S" + cstr(prepared.statement) : "P" + cstr(prepared.portal))); break;
        case 3: m = RawClient::message(frontend::Execute, cstr(prepared.portal) + int32(r.chance(70) ? 0 : 1)); break;
        default: m = RawClient::message(frontend::Sync, ""); break;
      }
    } else {
      m = oneMessage(r, prepared);
    }
    // Terminate and unknown types end the session: kept out of prefixes whose end is checked.
    if (noEnd && (m[0] == frontend::Terminate || m[0] == '\0' || std::strchr("PBEDCSQdcfHF", m[0]) == nullptr)) continue;
    s.starts.push_back(s.bytes.size());
    s.bytes += m;
  }
  return s;
}

std::string startupVariant(Rng& r, bool& framed) {
  const std::string ssl = RawClient::int32(8) + RawClient::int32(kSslRequestCode);
  const std::string gss = RawClient::int32(8) + RawClient::int32(kGssEncRequestCode);
  framed = false;
  switch (r.below(12)) {
    case 0: return ssl + ssl + validStartup();  // the second SSLRequest is refused
    case 1: framed = true; return gss + ssl + validStartup();
    case 2: {  // CancelRequest with random keys, sometimes of the wrong length
      std::string body = RawClient::int32(kCancelRequestCode) + r.bytes(r.chance(80) ? 8 : r.below(12));
      return RawClient::int32(static_cast<uint32_t>(body.size() + 4)) + body;
    }
    case 3: return RawClient::startupPacket(2 << 16, {{"user", "fuzz"}});
    case 4: framed = true; return RawClient::startupPacket((3 << 16) | static_cast<uint32_t>(r.below(3)), {{"user", "fuzz"}, {"_pq_.x", "1"}});
    case 5: {  // parameters of random bytes, with or without their terminator
      std::string body = RawClient::int32(kProtocolVersion3) + r.bytes(r.below(64));
      return RawClient::int32(static_cast<uint32_t>(body.size() + 4)) + body;
    }
    case 6: return RawClient::startupPacket(kProtocolVersion3, {{"database", "hyrax"}});  // no user
    case 7: {  // many parameters up to the packet limit
      std::vector<std::pair<std::string, std::string>> p;
      for (uint64_t i = 0, n = r.below(1200); i < n; ++i) p.emplace_back("k" + std::to_string(i % 50), "v");
      p.emplace_back("user", "fuzz");
      return RawClient::startupPacket(kProtocolVersion3, p);
    }
    case 8: return RawClient::int32(static_cast<uint32_t>(r.below(8)));  // shorter than its own length word
    case 9: {
      std::string body = RawClient::int32(kProtocolVersion3) + cstr("user") + "fuzz";  // no terminators
      return RawClient::int32(static_cast<uint32_t>(body.size() + 4)) + body;
    }
    case 10: return ssl.substr(0, 4 + r.below(4));
    default: framed = true; return RawClient::startupPacket(kProtocolVersion3, {{"user", "fuzz"}, {"user", "again"}, {"", ""}});
  }
}

// A SCRAM-SHA-256 login over TCP (roles `fuzz`, none, and `alice`, with a password: the driver
// creates it) with SASLInitialResponse and SASLResponse messages from their grammar's edges.
Input saslLogin(Rng& r) {
  Input in;
  in.kind = "sasl";
  in.tcp = true;
  const std::array<const char*, 3> users = {"fuzz", "alice", ""};
  in.bytes = RawClient::startupPacket(kProtocolVersion3, {{"user", r.pick(users)}});
  const std::array<const char*, 12> firsts = {"n,,n=,r=abcdefgh", "n,,n=alice,r=x", "y,,n=,r=abc", "p=tls-server-end-point,,n=,r=a",
                                              "n,a=bob,n=,r=a",   "n,,",            "n,,r=abc",    "n,,n=,r=a\x01",
                                              "x,,n=,r=a",        "n,,n=,r=a,m=ext", "n,,n=,r=,", ""};
  std::string first = r.chance(85) ? r.pick(firsts) : r.bytes(r.below(40));
  const std::array<const char*, 4> mechanisms = {"SCRAM-SHA-256", "SCRAM-SHA-256-PLUS", "PLAIN", ""};
  int64_t length = static_cast<int64_t>(first.size());
  if (r.chance(15)) length = r.chance(50) ? -1 : length + (r.chance(50) ? 1 : -1);
  in.bytes += RawClient::message(frontend::Password, cstr(r.chance(85) ? "SCRAM-SHA-256" : r.pick(mechanisms)) + int32(length) + first);
  if (r.chance(80)) {
    // client-final: the nonce cannot be known in advance, so these fail, each at its own check.
    const std::array<const char*, 7> finals = {"c=biws,r=abcdefgh,p=dGVzdA==", "c=biws,r=x,p=", "c=eSws,r=abc,p=!!!!", "c=biws",
                                               "r=a,c=b,p=c",                  ",,,",           "c=biws,r=abcdefgh,x=1,p=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="};
    in.bytes += RawClient::message(r.chance(90) ? frontend::Password : frontend::Query, r.chance(85) ? r.pick(finals) : r.bytes(r.below(60)));
  }
  if (r.chance(20)) {  // cut or flipped
    const size_t at = r.below(in.bytes.size());
    if (r.chance(50)) in.bytes.resize(at);
    else in.bytes[at] = static_cast<char>(in.bytes[at] ^ (1 << r.below(8)));
  }
  if (r.chance(10)) in.bytes += std::string("p") + int32(r.chance(50) ? kMaxAuthMessage + 5 : 0x7FFFFFFF);
  return in;
}

// Lengths outside the limits: claimed before anything is allocated, refused with FATAL 08P01.
Input oversized(Rng& r, const GeneratorConfig& c) {
  Input in;
  in.kind = "oversized";
  in.oversized = true;
  if (r.chance(20)) {  // the startup packet's length: over 10,000 or under 8
    const std::array<uint32_t, 5> lengths = {kMaxStartupPacket + 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 7};
    in.bytes = (r.chance(30) ? RawClient::int32(8) + RawClient::int32(kSslRequestCode) : "") + RawClient::int32(r.pick(lengths)) +
               RawClient::int32(kProtocolVersion3);
    return in;
  }
  Session s = grammarSession(r, true);
  const std::array<uint32_t, 8> lengths = {c.maxMessageBytes + 5, c.maxMessageBytes + 4 + 1024, 0x7FFFFFFF, 0x80000000,
                                           0xFFFFFFFF,          0,                              3,          0xFFFFFFFC};
  const std::array<char, 6> types = {'Q', 'P', 'B', 'd', 'S', 'X'};
  in.bytes = s.bytes + r.pick(types) + RawClient::int32(r.pick(lengths)) + r.bytes(r.below(16));
  return in;
}

void mutate(Rng& r, Session& s, const GeneratorConfig& c) {
  std::string& b = s.bytes;
  for (uint64_t i = 0, n = 1 + r.below(4); i < n && !b.empty(); ++i) {
    const size_t at = r.below(b.size());
    switch (r.below(8)) {
      case 0: b[at] = static_cast<char>(b[at] ^ (1 << r.below(8))); break;
      case 1: {
        const std::array<char, 5> v = {'\0', '\xFF', '\x7F', '\x80', 'S'};
        b[at] = r.chance(70) ? r.pick(v) : static_cast<char>(r.next());
        break;
      }
      case 2: b.resize(at); break;
      case 3: {  // a message's length word off by one, negative, huge, under 4
        if (s.starts.empty()) break;
        const size_t m = s.starts[r.below(s.starts.size())];
        if (m + 5 > b.size()) break;
        const uint32_t len = (uint32_t{static_cast<unsigned char>(b[m + 1])} << 24) | (uint32_t{static_cast<unsigned char>(b[m + 2])} << 16) |
                             (uint32_t{static_cast<unsigned char>(b[m + 3])} << 8) | static_cast<unsigned char>(b[m + 4]);
        const std::array<uint32_t, 9> v = {len + 1, len - 1, 0xFFFFFFFF, 0x7FFFFFFF, 0, 3, 4, c.maxMessageBytes + 4, len + 1000};
        b.replace(m + 1, 4, RawClient::int32(r.pick(v)));
        break;
      }
      case 4: b.insert(at, r.bytes(1 + r.below(8))); break;
      case 5: b.erase(at, 1 + r.below(16)); break;
      case 6: b.insert(at, b.substr(at, 1 + r.below(32))); break;
      default: {  // a whole message where it does not belong
        Prepared none;
        b.insert(at, oneMessage(r, none));
        break;
      }
    }
  }
}

}  // namespace

std::string baseSession() {
  return validStartup() + RawClient::message(frontend::Parse, cstr("s1") + cstr("SELECT a, b FROM t WHERE a = $1") + int16(1) + int32(23)) +
         RawClient::message(frontend::Bind, cstr("p1") + cstr("s1") + int16(1) + int16(1) + int16(1) + int32(4) + int32(1) + int16(0)) +
         RawClient::message(frontend::Describe, cstr("Pp1")) + RawClient::message(frontend::Execute, cstr("p1") + int32(1)) +
         RawClient::message(frontend::Sync, "") + RawClient::query("SELECT * FROM t") + RawClient::query("COPY t2 FROM STDIN") +
         RawClient::message(frontend::CopyData, "7\tseven\n") + RawClient::message(frontend::CopyDone, "") +
         RawClient::message(frontend::Close, cstr("Ss1")) + RawClient::message(frontend::Sync, "");
}

Input generate(uint64_t seed, uint64_t index, const GeneratorConfig& config) {
  static const std::string base = baseSession();
  Input in;
  if (index < base.size()) {  // truncation at every position of one valid session
    in.bytes = base.substr(0, index);
    in.kind = "truncated";
    return in;
  }
  Rng r(seed * 0x9E3779B97F4A7C15ull + index);
  const uint64_t w = r.below(100);
  if (w < 35) {
    Session s = grammarSession(r, false);
    in.bytes = std::move(s.bytes);
    in.kind = "grammar";
    in.framed = true;
  } else if (w < 80) {
    Session s = grammarSession(r, false);
    mutate(r, s, config);
    in.bytes = std::move(s.bytes);
    in.kind = "mutated";
  } else if (w < 86) {
    bool framed = false;
    in.bytes = startupVariant(r, framed);
    in.kind = "startup";
    if (framed) in.bytes += grammarSession(r, false, false).bytes;
    in.framed = framed;
  } else if (w < 92) {
    in = saslLogin(r);
  } else {
    in = oversized(r, config);
  }
  return in;
}

}  // namespace hyrax::server::fuzz
