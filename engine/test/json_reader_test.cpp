#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/load/json_reader.hpp"
#include "engine/test/reader_testing.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {

std::vector<std::vector<std::string>> readAll(const std::string& data, const std::vector<std::string>& columns,
                                              size_t step, JsonReader::Options options = {}) {
  JsonReader r(trickle(data, step), columns, options, step);
  return recordsOf(r);
}

std::string errorOf(const std::string& data, const std::vector<std::string>& columns) {
  try {
    readAll(data, columns, 3);
  } catch (const Error& e) {
    return e.sqlstate() + " " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("JSON lines become records in column order, whatever the block size") {
  const std::string data =
      "{\"b\": \"x\\ty\", \"a\": -1.5e3, \"n\": {\"c\": true}}\n\n  {\"a\": 0, \"b\": null}\r\n{\"b\":\"\\u00e9\\ud83d\\ude00\"}";
  const std::vector<std::vector<std::string>> want = {
      {"-1.5e3", "x\ty", "true"}, {"0", "<null>", "<null>"}, {"<null>", "\xc3\xa9\xf0\x9f\x98\x80", "<null>"}};
  for (size_t step : {1, 2, 7, 64, 4096}) CHECK(readAll(data, {"a", "b", "n.c"}, step) == want);
}

TEST_CASE("JSON errors name the byte column; unknown keys and containers are refused or skipped") {
  CHECK(errorOf("{\"a\": 1, \"z\": [1, {\"q\": 2}]}\n", {"a"}).rfind("22P02 key \"z\" at byte column 10", 0) == 0);
  CHECK(readAll("{\"a\": 1, \"z\": [1, {\"q\": 2}], \"y\": {\"w\": null}}\n", {"a"}, 5, {true, false}) ==
        std::vector<std::vector<std::string>>{{"1"}});
  CHECK(readAll("{\"a\": [1, 2]}\n", {"a"}, 5, {false, true}) == std::vector<std::vector<std::string>>{{"[1, 2]"}});
  CHECK(errorOf("{\"a\": [1]}", {"a"}).find("a JSON array") != std::string::npos);
  CHECK(errorOf("{\"a\": 01}", {"a"}) == "22P02 invalid JSON at byte column 7: invalid number");
  CHECK(errorOf("{\"a\": 1.}", {"a"}).rfind("22P02 invalid JSON at byte column 7", 0) == 0);
  CHECK(errorOf("{\"a\": \"\\ud800\"}", {"a"}).find("surrogate") != std::string::npos);
  CHECK(errorOf("{\"a\": \"\\u0000\"}", {"a"}).find("\\u0000") != std::string::npos);
  CHECK(errorOf("{\"a\": \"x\ty\"}", {"a"}).find("control character") != std::string::npos);
  CHECK(errorOf("{\"a\": tru}", {"a"}).rfind("22P02 invalid JSON at byte column 7", 0) == 0);
  CHECK(errorOf("{\"a\": 1", {"a"}).find("ends inside an object") != std::string::npos);
  CHECK(errorOf("{\"a\" 1}", {"a"}).find("expected ':'") != std::string::npos);
  CHECK(errorOf("{\"a\": \"\xe2\x82\"}", {"a"}).rfind("22021 invalid JSON at byte column 8", 0) == 0);
  std::string deep = "{\"a\": ";
  for (int i = 0; i < 300; ++i) deep += "[";
  CHECK(errorOf(deep, {"b"}).rfind("22P02 key \"a\"", 0) == 0);
  try {  // skipping it goes as deep as parsing an object would: refused, never a stack overflow
    readAll(deep, {"b"}, 4096, {true, false});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "54001");
  }
}

TEST_CASE("read_json's column inference") {
  const std::string data =
      "{\"i\": 1, \"d\": 1, \"o\": {\"x\": 1}, \"m\": true}\n{\"i\": -9223372036854775808, \"d\": 0.5, \"m\": 1, "
      "\"s\": \"t\", \"z\": null, \"big\": 9223372036854775808}\n";
  auto cols = JsonReader::inferColumns(trickle(data, 3), 3);
  std::vector<std::string> got;
  for (auto& c : cols) got.push_back(c.name + ":" + c.type.name());
  CHECK(got == std::vector<std::string>{"i:BIGINT", "d:DOUBLE PRECISION", "o.x:BIGINT", "m:VARCHAR", "s:VARCHAR",
                                        "z:VARCHAR", "big:DOUBLE PRECISION"});
}
