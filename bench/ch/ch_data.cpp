// SUPPLIER, NATION and REGION as the CH-benCHmark specifies them:
// - REGION: its five regions, keys 1-5.
// - NATION: its 62 nations, keyed by the ASCII codes of '0'-'9', 'A'-'Z', 'a'-'z' in that order, so
//   that a customer's nation is ascii(substr(c_state, 1, 1)) (c_state is two random alphanumerics).
// - SUPPLIER: 10,000 suppliers, keys 0-9,999, so that stock row (s_w_id, s_i_id)'s supplier is
//   mod(s_w_id * s_i_id, 10000). The columns as TPC-H's generator makes them: "Supplier#" and the
//   key in 9 digits; a random address of 10-40 characters; a random nation; a phone number whose
//   country code is the nation's number (0-61) + 10; a balance from -999.99 to 9,999.99; a comment
//   of 25-100 random characters, where five suppliers in 10,000 (TPC-H's rate for its "Customer
//   Complaints") have "bad" in theirs, which Q16 looks for, and five "good".
#include "bench/ch/ch_data.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/tpcc/tpcc_random.hpp"
#include "engine/types/text_format.hpp"

namespace hyrax::bench::ch {

namespace {

struct NationRow {
  const char* name;
  int region;
};
// The specification's nations and their regions, in key order.
const NationRow kNations[62] = {
    {"Australia", 4},  {"Belgium", 5},        {"Cameroon", 1},   {"Denmark", 5},     {"Ecuador", 2},
    {"France", 5},     {"Germany", 5},        {"Hungary", 5},    {"Italy", 5},       {"Japan", 3},
    {"Kenya", 1},      {"Lithuania", 5},      {"Mexico", 2},     {"Netherlands", 5}, {"Oman", 1},
    {"Portugal", 5},   {"Qatar", 1},          {"Rwanda", 1},     {"Serbia", 5},      {"Togo", 1},
    {"United States", 2}, {"Vietnam", 3},     {"Singapore", 3},  {"Cambodia", 3},    {"Yemen", 1},
    {"Zimbabwe", 1},   {"Argentina", 2},      {"Bolivia", 2},    {"Canada", 2},      {"Dominican Republic", 2},
    {"Egypt", 1},      {"Finnland", 5},       {"Ghana", 1},      {"Haiti", 2},       {"India", 3},
    {"Jamaica", 4},    {"Kazakhstan", 3},     {"Luxembourg", 5}, {"Morocco", 1},     {"Norway", 5},
    {"Poland", 5},     {"Peru", 2},           {"Nicaragua", 2},  {"Romania", 5},     {"South Africa", 1},
    {"Thailand", 3},   {"United Kingdom", 5}, {"Venezuela", 2},  {"Liechtenstein", 5}, {"Austria", 5},
    {"Laos", 3},       {"Zambia", 1},         {"Switzerland", 5}, {"China", 3},      {"Papua New Guinea", 4},
    {"East Timor", 4}, {"Bulgaria", 5},       {"Brazil", 2},     {"Albania", 5},     {"Andorra", 5},
    {"Belize", 2},     {"Botswana", 1},
};
const char* const kRegions[5] = {"Africa", "America", "Asia", "Australia", "Europe"};

// The key of nation n (0-61): the ASCII code of the n-th of '0'-'9', 'A'-'Z', 'a'-'z'.
int nationKey(int n) { return n < 10 ? '0' + n : n < 36 ? 'A' + (n - 10) : 'a' + (n - 36); }

}  // namespace

void addTables(tpcc::InitialData& data, uint64_t seed) {
  tpcc::Random r(seed ^ 0xC4C4C4C4ull);  // not the TPC-C tables' sequence
  tpcc::Rows region(data, "region"), nation(data, "nation"), supplier(data, "supplier");
  for (int k = 0; k < 5; ++k) region.row(k + 1, kRegions[k], r.astring(31, 115));
  for (int n = 0; n < 62; ++n) nation.row(nationKey(n), kNations[n].name, kNations[n].region, r.astring(31, 114));
  // Which suppliers' comments say "bad" (and "good"): five each, distinct.
  std::vector<int> picked;
  while (picked.size() < 10) {
    int s = static_cast<int>(r.uniform(0, kSuppliers - 1));
    if (std::find(picked.begin(), picked.end(), s) == picked.end()) picked.push_back(s);
  }
  for (int s = 0; s < kSuppliers; ++s) {
    char name[32];
    std::snprintf(name, sizeof(name), "Supplier#%09d", s);
    int n = static_cast<int>(r.uniform(0, 61));
    char phone[32];
    std::snprintf(phone, sizeof(phone), "%02d-%03d-%03d-%04d", n + 10, static_cast<int>(r.uniform(100, 999)),
                  static_cast<int>(r.uniform(100, 999)), static_cast<int>(r.uniform(1000, 9999)));
    std::string address = r.astring(10, 40);
    std::string balance = text::formatDecimal(r.uniform(-99'999, 999'999), 2);
    std::string comment = r.astring(25, 100);
    auto at = std::find(picked.begin(), picked.end(), s);
    if (at != picked.end()) {
      const char* word = at - picked.begin() < 5 ? " bad " : " good ";
      comment.replace(static_cast<size_t>(r.uniform(0, static_cast<int64_t>(comment.size()) - 6)), 6, word);
    }
    supplier.row(s, name, address, nationKey(n), phone, balance, comment);
  }
}

}  // namespace hyrax::bench::ch
