#pragma once
// A line chart as SVG text (no dependency): x on a log2 scale (client threads 1..64), y linear
// from 0, one coloured line with dots per series and a legend. For the benchmarks' figures in
// bench/README.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace hyrax::bench {

struct SvgPlot {
  struct Series {
    std::string name;
    std::vector<std::pair<double, double>> points;  // (x, y)
  };
  std::string title, xLabel, yLabel;
  std::vector<Series> series;

  std::string render() const {
    const double w = 760, h = 440, left = 90, right = 200, top = 40, bottom = 60;
    double xMin = 1e300, xMax = 0, yMax = 0;
    for (auto& s : series)
      for (auto& [x, y] : s.points) {
        xMin = std::min(xMin, x);
        xMax = std::max(xMax, x);
        yMax = std::max(yMax, y);
      }
    if (series.empty() || xMax <= 0) return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n";
    yMax = niceCeiling(yMax);
    const double lx0 = std::log2(std::max(xMin, 1.0)), lx1 = std::max(std::log2(xMax), lx0 + 1);
    auto px = [&](double x) { return left + (std::log2(std::max(x, 1.0)) - lx0) / (lx1 - lx0) * (w - left - right); };
    auto py = [&](double y) { return h - bottom - y / yMax * (h - top - bottom); };
    std::string out;
    char buf[512];
    auto add = [&](const char* fmt, auto... args) {
      std::snprintf(buf, sizeof buf, fmt, args...);
      out += buf;
    };
    add("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", w, h);
    add("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    add("<text x=\"%.0f\" y=\"22\" font-size=\"15\">%s</text>\n", left, escape(title).c_str());
    for (int i = 0; i <= 5; ++i) {  // y grid
      const double y = yMax * i / 5;
      add("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left, py(y), w - right, py(y));
      add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", left - 6, py(y) + 4, y);
    }
    for (double x = std::exp2(std::floor(lx0)); x <= xMax * 1.0001; x *= 2)  // x ticks at powers of two
      add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", px(x), h - bottom + 18, x);
    add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (left + w - right) / 2, h - 15, escape(xLabel).c_str());
    add("<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", (top + h - bottom) / 2,
        escape(yLabel).c_str());
    static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
    for (size_t i = 0; i < series.size(); ++i) {
      const char* c = colours[i % 8];
      const char* dash = series[i].name.find("postgres") != std::string::npos ? " stroke-dasharray=\"6,4\"" : "";
      std::string path;
      for (auto& [x, y] : series[i].points) {
        std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", path.empty() ? "" : " ", px(x), py(y));
        path += buf;
      }
      add("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>\n", c, dash, path.c_str());
      for (auto& [x, y] : series[i].points) add("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px(x), py(y), c);
      const double ly = top + 20 + 20.0 * static_cast<double>(i);
      add("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", w - right + 15, ly,
          w - right + 45, ly, c, dash);
      add("<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", w - right + 52, ly + 4, escape(series[i].name).c_str());
    }
    out += "</svg>\n";
    return out;
  }

 private:
  static double niceCeiling(double v) {  // 1, 2 or 5 times a power of ten, at least v
    if (v <= 0) return 1;
    const double p = std::pow(10, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * p >= v) return m * p;
    return 10 * p;
  }
  static std::string escape(const std::string& s) {
    std::string o;
    for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return o;
  }
};

}  // namespace hyrax::bench
