// Test program for the DWARF builder: templates, lambdas, virtual calls and the inlined
// standard library.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace shapes {

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

template <typename T> struct Rect : Shape {
	T w, h;
	Rect(T w_, T h_) : w(w_), h(h_) {}
	double area() const override { return static_cast<double>(w) * h; }
};

template <typename T> T accumulate_if(const std::vector<T> &v, std::function<bool(T)> keep)
{
	T sum{};
	for (const T &x : v)
		if (keep(x))
			sum += x;
	return sum;
}

} // namespace shapes

__attribute__((noinline)) static std::map<std::string, int> histogram(const std::vector<std::string> &words)
{
	std::map<std::string, int> h;
	for (const auto &w : words)
		++h[w];
	return h;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 20;
	std::vector<int> v;
	for (int i = 0; i < n; i++)
		v.push_back((i * 7919) % 101);
	std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
	int limit = n / 2;
	int s = shapes::accumulate_if<int>(v, [limit](int x) { return x > limit; });
	std::vector<shapes::Shape *> all{new shapes::Rect<int>(2, 3), new shapes::Rect<double>(1.5, 2)};
	double total = 0;
	for (auto *p : all)
		total += p->area();
	for (auto *p : all)
		delete p;
	std::vector<std::string> words{"a", "b", "a", argc > 2 ? argv[2] : "c"};
	auto h = histogram(words);
	std::printf("%d %.1f %zu\n", s, total, h.size());
	return 0;
}
