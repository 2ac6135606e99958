#include "bench/tpcc/tpcc_data.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "bench/tpcc/tpcc_random.hpp"
#include "engine/types/text_format.hpp"

namespace hyrax::bench::tpcc {

namespace {

std::string money(int64_t cents, int scale = 2) { return text::formatDecimal(cents, static_cast<uint8_t>(scale)); }

// i_data / s_data: 26..50 characters, 10% with "ORIGINAL" somewhere.
std::string data(Random& r) {
  std::string s = r.astring(26, 50);
  if (r.uniform(1, 10) == 1) s.replace(static_cast<size_t>(r.uniform(0, static_cast<int64_t>(s.size()) - 8)), 8, "ORIGINAL");
  return s;
}

std::string zip(Random& r) { return r.nstring(4, 4) + "11111"; }

}  // namespace

std::string& InitialData::text(const std::string& table) {
  for (auto& t : tables)
    if (t.name == table) return t.text;
  tables.push_back({table, ""});
  return tables.back().text;
}

InitialData generate(int warehouses, uint64_t seed, int loadDate) {
  InitialData d;
  for (const char* t : kTables) d.text(t);  // the load order
  Random r(seed);
  auto rows = [&](const char* table) { return Rows(d, table); };
  std::string date = text::formatDate(loadDate);
  Rows item = rows("item");
  for (int i = 1; i <= kItems; ++i)
    item.row(i, static_cast<int>(r.uniform(1, 10'000)), r.astring(14, 24), money(r.uniform(100, 10'000)), data(r));
  Rows warehouse = rows("warehouse"), district = rows("district"), customer = rows("customer"), history = rows("history"),
       orders = rows("orders"), orderLine = rows("order_line"), newOrder = rows("new_order"), stock = rows("stock");
  for (int w = 1; w <= warehouses; ++w) {
    warehouse.row(w, r.astring(6, 10), r.astring(10, 20), r.astring(10, 20), r.astring(10, 20), r.astring(2, 2), zip(r),
                  money(r.uniform(0, 2000), 4), "300000.00");
    for (int i = 1; i <= kItems; ++i) {
      std::string dist[10];
      for (auto& s : dist) s = r.astring(24, 24);
      stock.row(i, w, static_cast<int>(r.uniform(10, 100)), dist[0], dist[1], dist[2], dist[3], dist[4], dist[5], dist[6],
                dist[7], dist[8], dist[9], 0, 0, 0, data(r));
    }
    for (int dId = 1; dId <= kDistricts; ++dId) {
      district.row(dId, w, r.astring(6, 10), r.astring(10, 20), r.astring(10, 20), r.astring(10, 20), r.astring(2, 2),
                   zip(r), money(r.uniform(0, 2000), 4), "30000.00", kOrders + 1);
      for (int c = 1; c <= kCustomers; ++c) {
        int last = c <= 1000 ? c - 1 : static_cast<int>(r.nurand(255, 0, 999, kCLastLoad));
        customer.row(c, dId, w, r.astring(8, 16), "OE", lastName(last), r.astring(10, 20), r.astring(10, 20),
                     r.astring(10, 20), r.astring(2, 2), zip(r), r.nstring(16, 16), date,
                     r.uniform(1, 10) == 1 ? "BC" : "GC", "50000.00", money(r.uniform(0, 5000), 4), "-10.00", "10.00", 1,
                     0, r.astring(300, 500));
        history.row(c, dId, w, dId, w, date, "10.00", r.astring(12, 24));
      }
      std::vector<int> customers(kCustomers);
      std::iota(customers.begin(), customers.end(), 1);
      for (int k = kCustomers - 1; k > 0; --k) std::swap(customers[k], customers[r.uniform(0, k)]);
      for (int o = 1; o <= kOrders; ++o) {
        bool delivered = o < kFirstNewOrder;
        int lines = static_cast<int>(r.uniform(5, 15));
        orders.row(o, dId, w, customers[o - 1], date, delivered ? std::to_string(r.uniform(1, 10)) : "\\N", lines, 1);
        for (int l = 1; l <= lines; ++l)
          orderLine.row(o, dId, w, l, static_cast<int>(r.uniform(1, kItems)), w, delivered ? date : "\\N", 5,
                        delivered ? "0.00" : money(r.uniform(1, 999'999)), r.astring(24, 24));
        if (!delivered) newOrder.row(o, dId, w);
      }
    }
  }
  return d;
}

}  // namespace hyrax::bench::tpcc
