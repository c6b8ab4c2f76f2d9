/* Test program for the DWARF builder: inline chains, header helpers, a cold split
 * part, a recursive function, a function in a separate unit and one written in
 * assembly without debug information. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"

unsigned other_unit(unsigned x);
unsigned asm_double(unsigned x);

static int table[64];

__attribute__((noinline)) static unsigned hash_all(unsigned seed, int n)
{
	unsigned h = seed;
	for (int i = 0; i < n; i++)
		h = clamp_add(h, mix1(h + (unsigned)i), 0xfffffff0u);
	return h;
}

__attribute__((noinline, cold)) static void report_failure(const char *what, int code)
{
	fprintf(stderr, "failure: %s (%d)\n", what, code);
	exit(code);
}

__attribute__((noinline)) static int checked_div(int a, int b)
{
	if (__builtin_expect(b == 0, 0))
		report_failure("division by zero", 3);
	return a / b;
}

__attribute__((noinline)) static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void fill(int n)
{
	for (int i = 0; i < n && i < 64; i++)
		table[i] = (int)(mix3((unsigned)i) & 0xff);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	fill(n);
	unsigned h = hash_all((unsigned)n, n);
	int s = table_sum(table, n < 64 ? n : 64);
	int q = checked_div(s, n);
	if (argc > 2 && strcmp(argv[2], "fib") == 0)
		printf("%lu\n", fib((unsigned)n));
	printf("%u %d %d %u %u\n", h, s, q, other_unit(h), asm_double(h));
	return 0;
}
