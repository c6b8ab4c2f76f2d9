/* A second compilation unit with its own inlined helpers. */
#include "helpers.h"

static unsigned step(unsigned x)
{
	return mix1(x) + clamp_add(x, 17, 1000);
}

unsigned other_unit(unsigned x)
{
	unsigned acc = 0;
	for (unsigned i = 0; i < (x & 7); i++)
		acc += step(acc ^ i);
	return acc;
}
