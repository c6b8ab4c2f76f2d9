// C++ names for the archive tests: namespaces, anonymous namespaces, templates, aliases.
#include <cstdio>
#include <vector>

namespace {
__attribute__((noinline)) int hidden(int x) { return x * 5 + 3; }
}  // namespace

namespace demo {
template <typename T>
__attribute__((noinline)) T twice(T v) { return v + v; }

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Square : Shape {
  double side;
  explicit Square(double s) : side(s) {}
  double area() const override { return side * side; }
};

__attribute__((noinline)) int same_a(int x) { return x * 7; }
}  // namespace demo

extern "C" int same_b(int x) __attribute__((alias("_ZN4demo6same_aEi")));

int main(int argc, char **) {
  std::vector<demo::Shape *> shapes{new demo::Square(argc + 1.0)};
  double total = 0;
  for (auto *s : shapes) total += s->area();
  std::printf("%f %d %ld %d\n", total, hidden(argc), demo::twice<long>(argc),
              demo::same_a(argc) + same_b(argc));
  for (auto *s : shapes) delete s;
  return 0;
}
