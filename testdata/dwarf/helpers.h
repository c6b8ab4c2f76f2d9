/* Helpers inlined into main.c: an always_inline chain and static inline functions. */
#ifndef HELPERS_H
#define HELPERS_H

static inline __attribute__((always_inline)) unsigned mix3(unsigned x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	return x ^ (x >> 15);
}

static inline __attribute__((always_inline)) unsigned mix2(unsigned x, unsigned y)
{
	unsigned a = mix3(x + y);
	return mix3(a ^ y) + 7;
}

static inline __attribute__((always_inline)) unsigned mix1(unsigned x)
{
	return mix2(x, x * 3) ^ mix2(x + 1, 5);
}

static inline unsigned clamp_add(unsigned a, unsigned b, unsigned max)
{
	unsigned s = a + b;
	if (s < a || s > max)
		return max;
	return s;
}

static inline int table_sum(const int *t, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += t[i] * (i + 1);
	return s;
}

#endif
